"""Issue 21 items 1 and 4, against a real git host on 127.0.0.1 (smart HTTP over TLS): a git
skill's versions come only from branch or tag tips of the repository itself, and only from the
account that holds the repository owner's namespace — claimed once, by a verification file at a
tip naming the account, or given by an operator."""

from __future__ import annotations

import base64
import json

import pytest

from pipeline.models import Submission
from pipeline.services import steps
from pipeline.services.attempts import StepContext
from registry.models import Namespace, Skill, SkillVersion
from tests.support.git_repos import commit_files, git, make_repo, owner_file
from tests.support.skills import skill_md

pytestmark = pytest.mark.django_db


def submit(client, body: dict):
    return client.post(
        "/api/v1/submissions", data=json.dumps(body), content_type="application/json"
    )


def run_pipeline(submission_id) -> Submission:
    for name, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission_id), StepContext(task_name=name, task_id=f"{name}-id"))
    return Submission.objects.get(pk=submission_id)


def submitted(client, body: dict) -> Submission:
    response = submit(client, body)
    assert response.status_code == 201, response.json()
    return run_pipeline(response.json()["id"])


@pytest.fixture
def victim_repo(git_host):
    """victimorg/skills, whose owner file names the account "victim"."""
    return make_repo(
        git_host.root,
        "victimorg",
        "skills",
        {"json/SKILL.md": skill_md("json-formatter", version="1.0.0")},
        verified_for=["victim"],
    )


@pytest.fixture
def published(git_host, victim_repo, make_user, client_for):
    """victim publishes victimorg/json-formatter@1.0.0 from the main branch."""
    victim = make_user("victim")
    url = git_host.serve(victim_repo)
    submission = submitted(client_for(victim), {"repo_url": url, "skill_path": "json"})
    assert submission.state == "PUBLISHED", submission.outcome_message
    assert str(submission.published_version) == "victimorg/json-formatter@1.0.0"
    namespace = Namespace.objects.get(name="victimorg")
    assert (namespace.kind, namespace.account, namespace.host) == ("git", victim, git_host.host)
    assert "naming victim at" in namespace.decided_by
    return url


def pull_request(repo, number: int, files: dict[str, str]) -> str:
    """A commit that exists only as refs/pull/N/head (another account's pull request)."""
    main = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "-b", f"pr-{number}")
    commit = commit_files(repo, files, "a contribution")
    git(repo, "update-ref", f"refs/pull/{number}/head", commit)
    git(repo, "checkout", "--quiet", "main")
    git(repo, "branch", "--quiet", "-D", f"pr-{number}")
    assert git(repo, "rev-parse", "HEAD").strip() == main
    return commit


def test_the_host_advertises_the_pull_request_like_any_ref(git_host, published, victim_repo):
    pull_request(victim_repo, 1, {"json/SKILL.md": skill_md("json-formatter", version="9.9.9")})
    listing = git(victim_repo, "-c", f"http.sslCAInfo={git_host.ca_bundle}", "ls-remote", published)
    assert "refs/pull/1/head" in listing


@pytest.mark.parametrize("how", ["pull request head", "raw commit id"])
def test_another_accounts_pull_request_never_becomes_the_owners_version(
    git_host, published, victim_repo, make_user, client_for, how
):
    """The attack of the issue: mallory submits the owner's URL at the head of her pull
    request (declaring 9.9.9, and an owner file naming her) or at its raw commit id."""
    commit = pull_request(
        victim_repo,
        1,
        {"json/SKILL.md": skill_md("json-formatter", version="9.9.9"), **owner_file("mallory")},
    )
    ref = "refs/pull/1/head" if how == "pull request head" else commit
    mallory = client_for(make_user("mallory"))

    response = submit(mallory, {"repo_url": published, "skill_path": "json", "ref": ref})

    assert response.status_code == 400
    assert "belongs to the git owner victimorg" in response.json()["errors"]["repo_url"][0]
    assert list(SkillVersion.objects.values_list("version", flat=True)) == ["1.0.0"]
    holder = Namespace.objects.get(name="victimorg").account
    assert holder is not None and holder.username == "victim"


@pytest.mark.parametrize("how", ["pull request head", "raw commit id"])
def test_no_version_comes_from_a_pull_request_head_or_a_raw_commit_even_for_the_owner(
    git_host, published, victim_repo, client_for, how
):
    """A host serves any fork's commits through the parent repository: only the tip of a
    branch or tag of the repository itself is the owner's."""
    commit = pull_request(
        victim_repo, 1, {"json/SKILL.md": skill_md("json-formatter", version="9.9.9")}
    )
    ref = "refs/pull/1/head" if how == "pull request head" else commit
    victim = client_for(Namespace.objects.get(name="victimorg").account)

    submission = submitted(victim, {"repo_url": published, "skill_path": "json", "ref": ref})

    assert submission.state == "REJECTED"
    assert submission.outcome_code == "SOURCE_REJECTED"
    assert "current tip of a branch or tag of the repository itself" in submission.outcome_message
    assert list(SkillVersion.objects.values_list("version", flat=True)) == ["1.0.0"]


def test_another_account_cannot_publish_the_owners_branch_tip_either(
    git_host, published, victim_repo, make_user, client_for
):
    commit_files(victim_repo, {"json/SKILL.md": skill_md("json-formatter", version="2.0.0")}, "2")
    mallory = client_for(make_user("mallory"))
    response = submit(mallory, {"repo_url": published, "skill_path": "json"})
    assert response.status_code == 400
    assert "belongs to the git owner victimorg" in response.json()["errors"]["repo_url"][0]


def test_a_free_namespace_is_not_claimed_through_a_pull_request(git_host, make_user, client_for):
    repo = make_repo(git_host.root, "freeorg", "skills", {"SKILL.md": skill_md("free-tool")})
    url = git_host.serve(repo)
    pull_request(repo, 3, owner_file("mallory"))
    mallory = client_for(make_user("mallory"))
    submission = submitted(mallory, {"repo_url": url, "ref": "refs/pull/3/head"})
    assert submission.state == "REJECTED"
    assert not Namespace.objects.filter(name="freeorg").exists()


def test_without_the_verification_file_the_namespace_stays_unclaimed_and_says_how(
    git_host, make_user, client_for
):
    repo = make_repo(git_host.root, "someorg", "skills", {"SKILL.md": skill_md("tool")})
    url = git_host.serve(repo)
    submission = submitted(client_for(make_user("carol")), {"repo_url": url})
    assert submission.state == "REJECTED"
    assert ".skillgate/owner holding your account name (carol)" in submission.outcome_message
    assert not Namespace.objects.filter(name="someorg").exists()


def test_the_owner_publishes_a_tag_and_yanks_while_others_may_not(
    git_host, published, victim_repo, make_user, client_for
):
    commit_files(victim_repo, {"json/SKILL.md": skill_md("json-formatter", version="1.1.0")}, "t")
    git(victim_repo, "tag", "v1.1.0")
    victim = client_for(Namespace.objects.get(name="victimorg").account)
    submission = submitted(victim, {"repo_url": published, "skill_path": "json", "ref": "v1.1.0"})
    assert str(submission.published_version) == "victimorg/json-formatter@1.1.0"
    mallory = client_for(make_user("mallory"))
    yank = "/api/v1/skills/victimorg/json-formatter/versions/1.1.0/yank"
    assert mallory.post(yank, {}, format="json").status_code == 403
    assert victim.post(yank, {}, format="json").status_code == 200


# --- item 4: one namespace per owner name, whatever the source --------------------------


def test_a_git_owner_cannot_publish_beside_an_account_of_the_same_name(
    git_host, make_user, client_for
):
    alice = make_user("alice")
    response = submit(client_for(alice), {"files": {"SKILL.md": skill_md("hello")}})
    assert response.status_code == 201
    repo = make_repo(
        git_host.root, "alice", "tools", {"SKILL.md": skill_md("hello-pro")},
        verified_for=["mallory"],
    )  # fmt: skip
    url = git_host.serve(repo)
    response = submit(client_for(make_user("mallory")), {"repo_url": url})
    assert response.status_code == 400
    assert "belongs to the registry account alice" in response.json()["errors"]["repo_url"][0]
    assert not Skill.objects.filter(owner="alice", origin="git").exists()


def test_an_account_cannot_publish_under_a_name_a_git_owner_holds(
    git_host, published, make_user, client_for
):
    """An account created after the git owner claimed the name cannot use it."""
    response = submit(client_for(make_user("VictimOrg")), {"files": {"SKILL.md": skill_md("x")}})
    assert response.status_code == 400
    assert "belongs to the git owner victimorg" in response.json()["errors"]["name"][0]


def test_the_skill_says_which_source_holds_its_namespace(git_host, published, client):
    detail = client.get("/api/v1/skills/victimorg/json-formatter").json()
    assert detail["namespace"] == {"kind": "git", "host": git_host.host, "owner": "victimorg"}
    version = client.get("/api/v1/skills/victimorg/json-formatter/versions/1.0.0").json()
    payload = json.loads(base64.b64decode(version["attestations"]["verdict"]["payload"]))
    assert payload["predicate"]["namespace"] == detail["namespace"]  # signed, for the client
