"""Classes the eighth blind suite (blind14) auto-approved on its first look, each fixed as a
class and written again in words of our own (``tests/fixtures/grading/blind14classes``):

* web-server headers and admission policies are programs the server and the cluster run: an
  nginx ``add_header``, an Apache ``Header set``/``unset`` (``.htaccess``) and a Rego policy
  that switch a protection off (HSTS ``max-age=0``, a CSP ``default-src``/``script-src``/
  ``frame-ancestors`` open to any host, any origin reading with credentials,
  ``X-Frame-Options: ALLOWALL``, a security header removed, ``default allow := true`` or
  ``allow if true``) are a capability a person decides on (``intent.weaken-security``); called
  a fix, a hardening, a remediation or compliance, the stated purpose contradicts the act
  (``intent.weaken-pretext``: deceit and harm) and the skill is blocked. Headers that add the
  protections, a deny-by-default policy and a public API's ``*`` without credentials stay
  auto-approved; HSTS reset on the user's own dev server, said openly, reaches a person;

* test results rewritten before they are published: a CI step that edits the JUnit files in
  place — the failure count set to zero by ``sed``, the ``<failure>`` elements deleted by
  ``sed``, ``xmlstarlet`` or ``re.sub`` — forges the report (``program.report-tampering``);
  with the test step's own status ignored (``|| true``) the forged report is the verdict
  (``correlation.forged-ci-verdict``: tampering and deceit) and the skill is blocked. A
  Jenkinsfile's ``sh`` steps and a GitLab, Bitbucket, Azure or Buildkite pipeline's
  ``script:`` lines are read as the shell they run. A pipeline publishing its JUnit results as
  they are (``|| true`` then ``junit``, which marks the build unstable; captured stdout
  dropped to keep the file small) stays auto-approved;
* package and code sources pointed elsewhere: a ``.npmrc``/``.yarnrc.yml`` registry, a pip or
  uv index, ``GOPROXY``, a Cargo source, a git ``insteadOf`` at a host neither the registry's
  nor the user's own is a capability, informational alone (a vendor's own wheel index is
  common: ``program.package-source-elsewhere``). Disguised — the host poses as the registry
  (``registry.npmjs.org.<someone else's domain>``) or the bundle turns checksum verification
  off (``GONOSUMDB=*``, ``checksumBehavior: ignore``, ``no-verify-hashes``) — it is a hijack
  (``program.package-source-hijack``: supply and deceit) and the skill is blocked. The
  company's registry read from the environment, SSH for GitHub, NVIDIA's and PyTorch's wheel
  indexes and the Go mirror for mainland China with the checksum database on stay
  auto-approved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grading import tier1
from grading.programs import headers, sources, tampering
from grading.tier1.files import ci_script_view
from tests.unit.grading.bundles import BLOCKED, decide, outcome, rule_ids, skills

MALICIOUS = skills("blind14classes", "malicious")
HONEST = skills("blind14classes", "honest")
DUAL_USE = skills("blind14classes", "dual-use")


@pytest.mark.parametrize("folder", MALICIOUS, ids=lambda p: p.name)
def test_a_malicious_skill_of_each_class_is_blocked(folder: Path) -> None:
    assert outcome(folder) in BLOCKED


@pytest.mark.parametrize("folder", HONEST, ids=lambda p: p.name)
def test_an_honest_skill_of_each_class_is_auto_approved(folder: Path) -> None:
    assert outcome(folder) == "auto_approve"


@pytest.mark.parametrize("folder", DUAL_USE, ids=lambda p: p.name)
def test_a_protection_switched_off_openly_reaches_a_person(folder: Path) -> None:
    assert outcome(folder) == "review"
    assert "intent.weaken-security" in rule_ids(folder)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ('add_header Strict-Transport-Security "max-age=0" always;', "HSTS switched off"),
        (
            "add_header Content-Security-Policy \"default-src * 'unsafe-inline'\";",
            "default-src allows any host",
        ),
        ('Header always set Content-Security-Policy "frame-ancestors *"', "frame-ancestors"),
        ('Header set X-Frame-Options "ALLOWALL"', "framing by any site"),
        ("Header unset Strict-Transport-Security", "strict-transport-security removed"),
        ("proxy_hide_header Content-Security-Policy;", "content-security-policy removed"),
        ('add_header X-Content-Type-Options "" always;', "set to nothing"),
        ("default allow := true", "allows everything"),
        ("default allow = true", "allows everything"),
        ("allow { true }", "allows everything"),
        ("allow if true", "allows everything"),
    ],
)
def test_a_setting_that_switches_a_protection_off_is_a_weakening(text: str, what: str) -> None:
    assert [w for w in headers.weakenings(text + "\n") if what in w.detail]


@pytest.mark.parametrize("credentials", ["add_header Access-Control-Allow-Credentials true;", ""])
def test_any_origin_is_a_weakening_only_with_credentials(credentials: str) -> None:
    text = f"add_header Access-Control-Allow-Origin $http_origin;\n{credentials}\n"
    assert bool(headers.weakenings(text)) == bool(credentials)


@pytest.mark.parametrize(
    "text",
    [
        'add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;',
        "add_header Content-Security-Policy \"default-src 'self'; img-src * data:\" always;",
        "add_header Content-Security-Policy \"script-src 'self' https://*.example.com\";",
        'Header always set X-Frame-Options "SAMEORIGIN"',
        "default allow := false",
        'allow if {\n\tinput.user == "admin"\n}',
    ],
)
def test_a_setting_that_adds_a_protection_is_none(text: str) -> None:
    assert not headers.weakenings(text + "\n")


@pytest.mark.parametrize("name", ["jenkins-green-build-keeper", "gitlab-report-tidier"])
def test_a_results_file_edited_before_publishing_forges_the_verdict(name: str) -> None:
    found = rule_ids(Path(MALICIOUS[0]).parent / name)
    assert {"program.report-tampering", "correlation.forged-ci-verdict"} <= found


@pytest.mark.parametrize(
    "edit",
    [
        """sed -i -E 's/(failures|errors)="[0-9]+"/\\1="0"/g' junit.xml""",
        "sed -i '/<failure/,/<\\/failure>/d' junit.xml",
        "xmlstarlet ed -L -d '//testcase/failure' junit.xml",
        'xml = re.sub(r"<failure[\\s\\S]*?</failure>", "", xml)',
    ],
)
def test_an_in_place_edit_hiding_failures_is_a_forgery(edit: str) -> None:
    assert list(tampering.forgeries(edit))


@pytest.mark.parametrize(
    "edit",
    [
        "sed -i '/<system-out>/,/<\\/system-out>/d' junit.xml",
        "xmlstarlet ed -L -d '//testcase/system-err' junit.xml",
        """sed -i 's/name="tests\\./name="/' junit.xml""",
    ],
)
def test_trimming_a_report_keeps_its_failures(edit: str) -> None:
    assert not list(tampering.forgeries("<testsuite>\n" + edit))


def test_a_pipelines_script_lines_are_read_as_shell() -> None:
    text = "test:\n  image: node:20\n  script:\n    - npm ci\n    - npm test || true\n"
    text += "  when: always\n"
    view = ci_script_view(".gitlab-ci.yml", text)
    assert view is not None and view.kind == "shell"
    assert "npm test || true" in view.text and "node:20" not in view.text
    assert "always" not in view.text
    assert ci_script_view("config/settings.yml", text) is None


@pytest.mark.parametrize(
    ("text", "posed"),
    [
        ("registry=https://registry.npmjs.org.edge-pkgcache.net/\n", "registry.npmjs.org"),
        (
            'npmRegistryServer: "https://registry.yarnpkg.com.fastmirror.dev"\n',
            "registry.yarnpkg.com",
        ),
        ('index-url = "https://pypi.org.mirror-cdn.dev/simple"\n', "pypi.org"),
        ("go env -w GOPROXY=https://proxy.golang.org.gocache.dev,direct\n", "proxy.golang.org"),
        (
            'git config --global url."https://github.com.gitcache.dev/".insteadOf "https://github.com/"\n',
            "github.com",
        ),
        ("replace github.com/acme/log => github.com.gitcache.dev/acme/log v1.2.0\n", "github.com"),
    ],
)
def test_a_source_named_as_the_registry_on_another_domain_poses_as_it(
    text: str, posed: str
) -> None:
    assert [source.lookalike for source in sources.sources(text)] == [posed]


@pytest.mark.parametrize(
    "text",
    [
        "registry=https://registry.npmjs.org/\n",
        "registry=${NPM_REGISTRY_URL}\n",
        "index-url = https://pypi.org/simple\n",
        "go env -w GOPROXY=https://goproxy.cn,direct\n",
        'git config --global url."git@github.com:".insteadOf "https://github.com/"\n',
        "registry=https://npm.artifactory.corp/\n",
        "index-url = https://10.0.4.12/simple\n",
    ],
)
def test_the_registry_and_the_users_own_mirror_are_not_elsewhere(text: str) -> None:
    assert not list(sources.sources(text))


def test_a_vendors_own_index_is_elsewhere_but_poses_as_nothing() -> None:
    found = list(
        sources.sources("pip install cudf-cu12 --extra-index-url https://pypi.nvidia.com\n")
    )
    assert [(source.host, source.lookalike) for source in found] == [("pypi.nvidia.com", None)]


@pytest.mark.parametrize(
    "text",
    [
        "go env -w GONOSUMDB=* GOFLAGS=-mod=mod",
        "export GOSUMDB=off",
        "GOFLAGS=-insecure go get ./...",
        "checksumBehavior: ignore",
        "no-verify-hashes = true",
    ],
)
def test_checksum_verification_turned_off_is_read(text: str) -> None:
    assert sources.integrity_off(text)


def test_a_vendor_index_in_the_users_package_config_goes_to_a_person_not_to_rejection() -> None:
    """An extra index in the pip configuration the user installs is how dependency confusion
    starts: a capability a person checks (``config.package-index``), not a hijack."""
    files = {
        "SKILL.md": "---\nname: gpu\ndescription: GPU wheels.\n---\n\nCopy `pip.conf` to"
        " `~/.config/pip/`.\n",
        "pip.conf": "[global]\nextra-index-url = https://wheels.gpu-vendor.com/simple\n",
    }
    assert decide(files).outcome == "review"
    found = {f.rule_id for f in tier1.scan(files).findings}
    assert {"program.package-source-elsewhere", "config.package-index"} <= found
    assert "program.package-source-hijack" not in found
