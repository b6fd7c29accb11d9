"""Issue 9 items 1–5 and 13: the vendor fast path trusts the vendor, not a URL.

The fast path opens only for the tip of a branch or tag of a trusted organisation's repository
(host and owner), submitted by one of its linked publishers; even then Tier 1 runs, and a
critical finding sends the bundle to a person. The git fetch runs in the pipeline's intake step.
"""

from __future__ import annotations

import json

import pytest

from pipeline.models import Submission
from pipeline.outcomes import OutcomeCode
from pipeline.services import failures, steps
from pipeline.services.attempts import StepContext
from pipeline.sources.git import FILE_HOST
from pipeline.states import State
from registry import services as registry
from registry.models import PublisherMembershipEvent, Skill, SkillVersion, TrustedOrg
from tests.support.git_repos import file_url, git, make_repo
from tests.support.skills import skill_md, tier1_failing_files

pytestmark = pytest.mark.django_db
URL = "/api/v1/submissions"


@pytest.fixture(autouse=True)
def _allow_file_urls(settings):
    settings.SKILLGATE_GIT_ALLOW_FILE_URLS = True


@pytest.fixture
def vendor_repo(tmp_path):
    return make_repo(tmp_path, "anthropics", "skills", {"pdf/SKILL.md": skill_md("pdf-tools")})


@pytest.fixture
def org():
    """The trusted organisation as the tests' git host (file://) knows it."""
    return TrustedOrg.objects.create(host=FILE_HOST, name="anthropics")


@pytest.fixture
def publisher(make_user, org):
    user = make_user("vendor-publisher")
    registry.link_publisher(org, user, actor="operator")
    return user


def submit(client, body: dict):
    return client.post(URL, data=json.dumps(body), content_type="application/json")


def run_pipeline(submission_id) -> Submission:
    for name, step in (
        ("pipeline.scan", steps.run_intake),
        ("pipeline.scan", steps.run_scan),
        ("pipeline.judge", steps.run_judge),
        ("pipeline.publish", steps.run_publish),
    ):
        step(str(submission_id), StepContext(task_name=name, task_id=f"{name}-id"))
    return Submission.objects.get(pk=submission_id)


def states(submission: Submission) -> list[str]:
    return [event.to_state for event in submission.events.all()]


def test_the_default_trusted_organisations_are_github_organisations():
    assert TrustedOrg.objects.filter(name="anthropics").get().host == "github.com"


def test_a_linked_publisher_at_a_branch_tip_takes_the_vendor_path_after_tier1(
    client_for, publisher, vendor_repo
):
    response = submit(
        client_for(publisher), {"repo_url": file_url(vendor_repo), "skill_path": "pdf"}
    )
    assert response.status_code == 201, response.json()
    assert response.json()["state"] == "RECEIVED"
    submission = run_pipeline(response.json()["id"])
    assert states(submission) == ["RECEIVED", "VENDOR_APPROVED", "PUBLISHED"]
    approved = submission.events.get(to_state="VENDOR_APPROVED").metadata
    assert approved["org"] == "file/anthropics"
    assert approved["ref"] == "refs/heads/main"
    assert approved["commit"] == git(vendor_repo, "rev-parse", "HEAD").strip()
    assert submission.published_version is not None
    assert submission.published_version.channel == SkillVersion.Channel.VENDOR
    assert submission.scans.get(tier=1).result.verdict == "PASS"


# --- item 1: dot segments cannot smuggle another owner -----------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/anthropics/../attacker/evil-skill.git",
        "https://github.com/anthropics/%2e%2e/attacker/evil-skill",
        "https://github.com//anthropics/../../attacker/evil-skill",
    ],
)
def test_owner_spoofing_with_dot_segments_is_refused_at_submission(client_for, publisher, url):
    response = submit(client_for(publisher), {"repo_url": url})
    assert response.status_code == 400
    assert "repo_url" in response.json()["errors"]
    assert not Submission.objects.exists()


# --- item 2: trust is (host, owner) ------------------------------------------------------


def test_the_trusted_name_on_another_host_is_not_the_vendor(client_for, make_user, vendor_repo):
    """Trusted as github.com/anthropics only: the same owner name on the tests' host is
    someone else, even for an account linked to the github.com organisation."""
    org = TrustedOrg.objects.get(host="github.com", name="anthropics")
    member = make_user("gh-member")
    registry.link_publisher(org, member, actor="operator")
    response = submit(client_for(member), {"repo_url": file_url(vendor_repo), "skill_path": "pdf"})
    submission = run_pipeline(response.json()["id"])
    assert states(submission)[:3] == ["RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING"]
    assert submission.vendor_org is None
    assert submission.published_version is not None
    assert submission.published_version.channel == SkillVersion.Channel.AUTOMATIC


def test_a_git_skill_takes_versions_only_from_its_own_host(make_user):
    author = make_user("bob")
    registry.check_publisher("bob", "x", "git", author, host="github.com")
    Skill.objects.create(owner="bob", name="x", origin="git", host="github.com")
    registry.check_publisher("bob", "x", "git", author, host="github.com")
    with pytest.raises(registry.NameTaken):
        registry.check_publisher("bob", "x", "git", author, host="codeberg.org")


# --- item 3: only a branch or tag tip of the organisation's repository --------------------


@pytest.mark.parametrize("ref", ["refs/pull/7/head", "COMMIT"])
def test_a_pull_request_head_or_a_raw_commit_goes_through_the_normal_scan(
    client_for, publisher, vendor_repo, ref
):
    git(vendor_repo, "update-ref", "refs/pull/7/head", "HEAD")
    if ref == "COMMIT":
        ref = git(vendor_repo, "rev-parse", "HEAD").strip()
    response = submit(
        client_for(publisher), {"repo_url": file_url(vendor_repo), "skill_path": "pdf", "ref": ref}
    )
    submission = run_pipeline(response.json()["id"])
    assert states(submission)[:3] == ["RECEIVED", "TIER1_SCANNING", "TIER2_SCANNING"]
    intake = submission.events.get(to_state="TIER1_SCANNING").metadata
    assert "not the tip of a branch or tag" in intake["vendor_path_refused"]
    assert submission.published_version is not None
    assert submission.published_version.channel != SkillVersion.Channel.VENDOR


# --- item 4: publisher membership ----------------------------------------------------------


def test_a_non_member_cannot_submit_under_a_trusted_organisation(
    client_for, make_user, vendor_repo, org
):
    stranger = client_for(make_user("stranger"))
    response = submit(stranger, {"repo_url": file_url(vendor_repo), "skill_path": "pdf"})
    assert response.status_code == 400
    assert "only accounts linked to it" in response.json()["errors"]["repo_url"][0]
    elsewhere = submit(stranger, {"repo_url": "https://gitlab.com/anthropics/skills"})
    assert elsewhere.status_code == 400
    assert not Submission.objects.exists()


def test_an_account_named_like_a_trusted_organisation_cannot_publish_under_it(
    client_for, make_user, org
):
    response = submit(
        client_for(make_user("anthropics")), {"files": {"SKILL.md": skill_md("pdf-tools")}}
    )
    assert response.status_code == 400
    assert "verified publisher" in response.json()["detail"]


def test_linking_and_unlinking_publishers_is_audited(make_user, org):
    user = make_user("carol")
    membership = registry.link_publisher(org, user, actor="ops")
    registry.link_publisher(org, user, actor="ops")
    registry.unlink_publisher(membership, actor="ops2")
    events = list(PublisherMembershipEvent.objects.order_by("id").values_list("action", "actor"))
    assert events == [("linked", "ops"), ("unlinked", "ops2")]
    assert registry.vendor_org_for(FILE_HOST, "anthropics", user) is None


def test_membership_revoked_before_intake_closes_the_vendor_path(
    client_for, publisher, vendor_repo, org
):
    response = submit(
        client_for(publisher), {"repo_url": file_url(vendor_repo), "skill_path": "pdf"}
    )
    registry.unlink_publisher(org.memberships.get(user=publisher), actor="ops")
    submission = run_pipeline(response.json()["id"])
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert submission.outcome.code == OutcomeCode.SOURCE_REJECTED
    assert "only accounts linked to it" in submission.outcome.message


# --- item 5: vendor bundles still run Tier 1 ----------------------------------------------


def test_a_vendor_bundle_with_a_critical_finding_waits_for_review(client_for, publisher, tmp_path):
    repo = make_repo(tmp_path / "bad", "anthropics", "skills", tier1_failing_files("quick-setup"))
    response = submit(client_for(publisher), {"repo_url": file_url(repo)})
    submission = run_pipeline(response.json()["id"])
    assert [(e.to_state, e.trigger) for e in submission.events.all()] == [
        ("RECEIVED", "api-submission"),
        ("TIER1_SCANNING", "vendor-tier1-critical"),
        ("TIER2_SCANNING", "tier1-vendor-held"),
        ("NEEDS_REVIEW", "tier2-concerns"),
    ]
    report = submission.scans.get(tier=1).result.tier1_report
    assert report.verdict == "FAIL"
    assert any(f.severity == "critical" for f in report.findings)
    assert "verified vendor source" in submission.review.reasons[0]
    assert submission.published_version is None


# --- item 13: the fetch is a pipeline step ---------------------------------------------------


def test_a_git_submission_is_accepted_before_the_fetch_and_the_worker_records_the_commit(
    client_for, make_user, tmp_path
):
    repo = make_repo(tmp_path, "someorg", "skills", {"SKILL.md": skill_md("pdf-tools")})
    response = submit(client_for(make_user()), {"repo_url": file_url(repo)})
    assert response.status_code == 201
    body = response.json()
    assert body["skill"] == {"owner": "someorg", "name": ""}
    assert body["bundle_sha256"] is None
    submission = run_pipeline(body["id"])
    assert submission.skill_name == "pdf-tools"
    assert submission.resolved_commit == git(repo, "rev-parse", "HEAD").strip()
    assert submission.state == State.PUBLISHED


def test_a_git_source_that_cannot_be_used_ends_rejected_saying_what_to_fix(
    client_for, make_user, tmp_path
):
    repo = make_repo(tmp_path, "someorg", "skills", {"SKILL.md": skill_md("pdf-tools")})
    response = submit(client_for(make_user()), {"repo_url": file_url(repo), "ref": "v9"})
    assert response.status_code == 201
    submission = run_pipeline(response.json()["id"])
    assert states(submission) == ["RECEIVED", "REJECTED"]
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("error", "SOURCE_REJECTED")
    assert "ref 'v9' was not found" in submission.outcome.message


def test_a_git_host_that_keeps_failing_ends_with_its_own_outcome(make_user):
    submission = Submission.objects.create(
        skill_owner="someorg",
        source_kind=Submission.SourceKind.GIT,
        repo_url="https://github.com/someorg/skills.git",
        repo_host="github.com",
        submitter=make_user(),
        state=State.RECEIVED,
        state_changed_at="2026-01-01T00:00:00Z",
        deadline_at="2026-01-01T00:30:00Z",
    )
    failures.record(
        failures.GiveUp(
            key="t:3",
            task_name="pipeline.scan",
            task_id="t",
            submission_id=str(submission.pk),
            reason="retries_exhausted",
            error_class="fetch_timeout",
            error_message="fetching the repository took longer than 30s",
            attempts=4,
            failures=4,
            source_unavailable=True,
        )
    )
    submission.refresh_from_db()
    assert submission.state == State.REJECTED
    assert submission.outcome is not None
    assert (submission.outcome.kind, submission.outcome.code) == ("error", "SOURCE_UNAVAILABLE")
    assert "after 4 attempt(s)" in submission.outcome.message


def test_operators_link_publishers_in_the_admin_and_the_link_is_audited(client, make_user, org):
    operator = make_user("root", staff=True, is_superuser=True)
    vendor = make_user("dana")
    client.force_login(operator)
    response = client.post(
        "/admin/registry/publishermembership/add/", {"org": org.pk, "user": vendor.pk}
    )
    assert response.status_code == 302, response.content[:500]
    membership = org.memberships.get(user=vendor)
    assert membership.linked_by == "root"
    response = client.post(
        f"/admin/registry/publishermembership/{membership.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 302
    assert not org.memberships.exists()
    assert list(PublisherMembershipEvent.objects.values_list("action", "username", "actor")) == [
        ("unlinked", "dana", "root"),
        ("linked", "dana", "root"),
    ]


def test_the_admin_shows_the_source_identity_read_only(
    client, client_for, make_user, publisher, vendor_repo
):
    submitted = submit(
        client_for(publisher), {"repo_url": file_url(vendor_repo), "skill_path": "pdf"}
    )
    run_pipeline(submitted.json()["id"])
    client.force_login(make_user("root", staff=True, is_superuser=True))
    page = client.get(f"/admin/pipeline/submission/{submitted.json()['id']}/change/")
    assert page.status_code == 200
    for field in ("repo_host", "resolved_ref", "vendor_org"):
        assert f'name="{field}"' not in page.content.decode()
    assert b"refs/heads/main" in page.content
