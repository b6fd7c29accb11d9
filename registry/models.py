"""Registry records: content-addressed bundle snapshots, skills, their immutable versions with
their status and its audit trail, the trusted organisations whose submissions may take the
vendor fast path, and the accounts linked to them as their publishers."""

from __future__ import annotations

import uuid
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from grading.records import Tier2Record, decode_tier1, decode_tier2
from grading.types import Tier1Report
from registry.bundles import Bundle
from registry.versions import PRERELEASE_PATTERN


class BundleSnapshot(models.Model):
    """The files of a skill exactly as fetched once; every tier and the version read this."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    files = models.JSONField(help_text="Canonical file list: path, size, sha256, text|base64.")
    manifest = models.JSONField(
        default=dict,
        blank=True,
        help_text="SKILL.md's front matter as parsed once at intake: name, description, "
        "version, allowed tools.",
    )
    file_count = models.PositiveIntegerField()
    total_bytes = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "bundle snapshot"

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.file_count} files, {self.total_bytes} bytes)"

    def as_bundle(self) -> Bundle:
        return Bundle.from_json(self.files)


class GradingResult(models.Model):
    """What one grader said about one bundle, keyed by what produced it: the bundle, the Tier 1
    catalogue version and, for Tier 2, the judge version.

    Written once and never changed. Submissions and published versions point to results; a
    re-scan after the rules or the judge changed adds new results beside the old ones, so every
    verdict stays explainable by the rules that made it. The JSON is written and read only by
    ``grading.records``.
    """

    class Tier(models.IntegerChoices):
        TIER1 = 1, "Tier 1 (rules)"
        TIER2 = 2, "Tier 2 (judge)"

    # No index of its own: one_result_per_grader leads with it (one index less per result).
    bundle = models.ForeignKey(
        BundleSnapshot, on_delete=models.PROTECT, related_name="results", db_index=False
    )
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    catalogue_version = models.CharField(
        max_length=64, help_text="Content hash of the Tier 1 rule catalogue that ran."
    )
    judge_version = models.CharField(
        max_length=128, blank=True, help_text="Tier 2: provider, model and weights or prompt."
    )
    verdict = models.CharField(max_length=16)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    decision = models.CharField(
        max_length=16, blank=True, help_text="Tier 2: what the policy decided from the score."
    )
    report = models.JSONField(help_text="The report, as grading.records encodes it.")
    duration_ms = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bundle", "tier", "catalogue_version", "judge_version"],
                name="one_result_per_grader",
            )
        ]

    def __str__(self) -> str:
        made_by = self.judge_version or self.catalogue_version
        return f"tier {self.tier} {self.verdict} {self.score or ''} by {made_by}".strip()

    @cached_property
    def tier1_report(self) -> Tier1Report:
        return decode_tier1(self.report)

    @cached_property
    def tier2_record(self) -> Tier2Record:
        return decode_tier2(self.report)


class Skill(models.Model):
    """A named skill; ``owner`` is the git repository owner (on ``host``) or the submitter's
    username."""

    class Origin(models.TextChoices):
        GIT = "git", "Git repository owner"
        ACCOUNT = "account", "Registry account"

    owner = models.CharField(max_length=100, help_text="Lowercase.")
    name = models.CharField(max_length=64)
    host = models.CharField(
        max_length=253,
        blank=True,
        help_text="For skills from git: the repository host; only that host's owner publishes.",
    )
    origin = models.CharField(max_length=8, choices=Origin.choices)
    owner_account = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="For skills owned by a registry account: the only account that may publish.",
    )
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint("owner", "name", name="skill_owner_name_unique"),
        ]
        ordering = ("owner", "name")

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class VersionStatus(models.TextChoices):
    """A published version's lifecycle (``registry.lifecycle`` has the machine)."""

    PUBLISHED = "published", "Published"
    YANKED = "yanked", "Yanked by its owner"
    QUARANTINED = "quarantined", "Quarantined by Security"


class VersionQuerySet(models.QuerySet["SkillVersion"]):
    """The one definition of which versions count: every "latest" and every listing reads these."""

    def available(self) -> VersionQuerySet:
        """Versions a client may be given without asking for them by number."""
        return self.filter(status=VersionStatus.PUBLISHED)

    def releases(self) -> VersionQuerySet:
        """Versions without a pre-release tag: only these are ever "latest" (as in pip, npm)."""
        return self.exclude(version__regex=PRERELEASE_PATTERN)

    def listed(self) -> VersionQuerySet:
        """Versions shown in listings: quarantined ones are hidden, yanked ones stay visible."""
        return self.exclude(status=VersionStatus.QUARANTINED)

    def newest_first(self) -> VersionQuerySet:
        """Publication order, newest first; versions are assigned in increasing order."""
        return self.order_by("-id")


class SkillVersion(models.Model):
    """One immutable published version; created once per submission that changed the bundle.

    Its files never change; its ``status`` does, only through ``registry.lifecycle``, each
    change recorded as a VersionEvent.
    """

    class Channel(models.TextChoices):
        VENDOR = "vendor", "Vendor fast path"
        AUTOMATIC = "automatic", "Automatically approved"
        REVIEW = "review", "Approved by a reviewer"

    Status = VersionStatus

    # No index of its own: skill_version_unique and skill_version_latest lead with it.
    skill = models.ForeignKey(
        Skill, on_delete=models.PROTECT, related_name="versions", db_index=False
    )
    version = models.CharField(max_length=64)
    bundle = models.ForeignKey(BundleSnapshot, on_delete=models.PROTECT, related_name="+")
    submission = models.OneToOneField(
        "pipeline.Submission", on_delete=models.PROTECT, related_name="created_version"
    )
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The account whose submission created this version.",
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    published_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=12, choices=VersionStatus.choices, default=VersionStatus.PUBLISHED
    )
    status_reason = models.TextField(blank=True, help_text="Why the status last changed.")
    status_changed_at = models.DateTimeField(null=True, blank=True)

    tier1_result = models.ForeignKey(
        GradingResult,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The version's current Tier 1 verdict (a re-scan replaces it).",
    )
    tier2_result = models.ForeignKey(
        GradingResult,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The version's current Tier 2 verdict (a re-scan replaces it).",
    )

    objects = VersionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint("skill", "version", name="skill_version_unique"),
        ]
        indexes = [
            # A skill's latest version (registry.selectors) in one index probe; the admin's
            # list in its order, unfiltered and under each filter.
            models.Index(fields=["skill", "-id"], name="skill_version_latest"),
            models.Index(fields=["status", "skill", "-id"], name="skill_version_by_status"),
            models.Index(fields=["channel", "skill", "-id"], name="skill_version_by_channel"),
            models.Index(fields=["version"], name="skill_version_by_number"),
        ]
        ordering = ("skill", "-id")

    def __str__(self) -> str:
        return f"{self.skill}@{self.version}"


class AppendOnlyQuerySet(models.QuerySet["VersionEvent"]):
    """Bulk updates and deletes are refused too, not only ``save`` and ``delete``."""

    def update(self, **kwargs: Any) -> int:
        raise TypeError("version events are append-only: they cannot be updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("version events are append-only: they cannot be deleted")


class VersionEvent(models.Model):
    """One status change of a version (or its publication). Never updated or deleted, in Python
    or in the database; quarantines and restorations are the public advisories."""

    class Action(models.TextChoices):
        PUBLISH = "publish", "Published"
        QUARANTINE = "quarantine", "Quarantined"
        RESTORE = "restore", "Restored"
        YANK = "yank", "Yanked"
        UNYANK = "unyank", "Un-yanked"

    class ActorType(models.TextChoices):
        ACCOUNT = "account"
        SYSTEM = "system"

    # No index of its own: version_event_by_version leads with it.
    version = models.ForeignKey(
        SkillVersion, on_delete=models.PROTECT, related_name="events", db_index=False
    )
    # Empty for the publication, which has no status before it.
    from_status = models.CharField(max_length=12, choices=VersionStatus.choices, blank=True)
    to_status = models.CharField(max_length=12, choices=VersionStatus.choices)
    action = models.CharField(max_length=12, choices=Action.choices)
    actor = models.CharField(max_length=150)
    actor_type = models.CharField(max_length=8, choices=ActorType.choices)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ("created_at", "id")
        indexes = [
            models.Index(fields=["version", "created_at"], name="version_event_by_version"),
            models.Index(
                fields=["-created_at", "-id"],
                condition=models.Q(action__in=["quarantine", "restore"]),
                name="version_event_advisories",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_status or '∅'} → {self.to_status} ({self.action} by {self.actor})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("version events are append-only: they cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("version events are append-only: they cannot be deleted")


class TrustedOrg(models.Model):
    """An organisation on a git host whose linked publishers may take the vendor fast path.

    Trust is (host, owner): the same name on another host is somebody else. Matched ignoring
    case.
    """

    host = models.CharField(max_length=253, default="github.com")
    name = models.CharField(max_length=100, help_text="The repository owner on that host.")
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("host"), Lower("name"), name="trusted_org_unique"),
        ]
        ordering = ("host", "name")
        verbose_name = "trusted organisation"

    def __str__(self) -> str:
        return f"{self.host}/{self.name}"


class PublisherMembership(models.Model):
    """An account linked to a trusted organisation: only members' submissions take the vendor
    path, and only members publish under the organisation's name. Changed through
    ``registry.services`` only, which writes a PublisherMembershipEvent for every change."""

    org = models.ForeignKey(TrustedOrg, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="publisher_memberships"
    )
    linked_by = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint("org", "user", name="publisher_membership_unique"),
        ]
        ordering = ("org", "user")
        verbose_name = "publisher membership"

    def __str__(self) -> str:
        return f"{self.user} publishes for {self.org}"


class PublisherMembershipEvent(models.Model):
    """The audit trail of publisher memberships: who linked or unlinked whom, when. Names are
    copied, so the trail outlives deleted accounts and organisations."""

    class Action(models.TextChoices):
        LINKED = "linked"
        UNLINKED = "unlinked"

    org = models.CharField(max_length=360, help_text="host/owner")
    username = models.CharField(max_length=150)
    action = models.CharField(max_length=8, choices=Action.choices)
    actor = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        verbose_name = "publisher membership event"

    def __str__(self) -> str:
        return f"{self.actor} {self.action} {self.username} for {self.org}"


class RescanCampaign(models.Model):
    """A re-scan of published versions with today's rules and judge, started by an operator
    (typically after the rule catalogue or the judge changed).

    Its items are created when it starts, one per version in scope, so the campaign is
    resumable: whatever crashes, the pending items say what is left, and each item is done in
    one transaction (no version recorded twice, none skipped). The counters are maintained as
    items finish, so progress costs one row to read.
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    scope = models.JSONField(help_text="Which versions: all, one owner's, or published since.")
    catalogue_version = models.CharField(max_length=64, help_text="The rules it scans with.")
    judge_version = models.CharField(max_length=128, help_text="The judge it scores with.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(
        default=0, help_text="Versions whose verdict is now worse than before."
    )
    failed = models.PositiveIntegerField(default=0)
    started_by = models.CharField(max_length=150)
    started_at = models.DateTimeField(auto_now_add=True)
    progressed_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-started_at",)
        verbose_name = "re-scan campaign"
        permissions = [("start_rescan", "Can start re-scan campaigns")]
        indexes = [
            models.Index(
                fields=["progressed_at"],
                condition=models.Q(status="running"),
                name="rescan_running",
            )
        ]

    def __str__(self) -> str:
        return f"re-scan {str(self.id)[:8]} ({self.done}/{self.total})"


class RescanItem(models.Model):
    """One version of a campaign: pending until re-scanned, then its new verdict compared with
    the one it had."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"
        FAILED = "failed"

    class Outcome(models.TextChoices):
        UNCHANGED = "unchanged", "Unchanged or better"
        CONCERNING = "concerning", "Newly concerning: sent to review"
        CRITICAL = "critical", "Newly critical: quarantined and sent to review"

    campaign = models.ForeignKey(RescanCampaign, on_delete=models.CASCADE, related_name="items")
    version = models.ForeignKey(SkillVersion, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True)
    previous_tier1 = models.ForeignKey(
        GradingResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    previous_tier2 = models.ForeignKey(
        GradingResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    tier1_result = models.ForeignKey(
        GradingResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    tier2_result = models.ForeignKey(
        GradingResult, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("id",)
        constraints = [
            models.UniqueConstraint("campaign", "version", name="rescan_item_once_per_version")
        ]
        indexes = [
            models.Index(
                fields=["campaign", "id"],
                condition=models.Q(status="pending"),
                name="rescan_item_pending",
            )
        ]

    def __str__(self) -> str:
        return f"{self.version_id} {self.status} {self.outcome}".strip()


class Namespace(models.Model):
    """An owner name (the ``alice`` of ``alice/hello``) and the one source that holds it.

    Every skill lives in a namespace, and a namespace belongs to exactly one source: a registry
    account (its username, claimed when the account is created or first publishes) or a git
    repository owner on one host, claimed once by an account that proved control of a
    repository there (a verification file at a branch or tag tip naming the account) or given
    by an operator. ``registry.namespaces`` holds the rule; names that look alike (case,
    ``0``/``o``, ``1``/``l``, ``rn``/``m`` …) share a ``skeleton`` and cannot both exist.
    """

    class Kind(models.TextChoices):
        ACCOUNT = "account", "Registry account"
        GIT = "git", "Git repository owner"

    name = models.CharField(max_length=100, unique=True, help_text="Lowercase ASCII.")
    skeleton = models.CharField(
        max_length=100, unique=True, help_text="The name with look-alike characters folded."
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="namespaces",
        help_text="The account that publishes in it (for a trusted organisation's: none, its "
        "linked publishers do).",
    )
    host = models.CharField(max_length=253, blank=True, help_text="Git: the repository host.")
    git_owner = models.CharField(max_length=100, blank=True, help_text="Git: the owner there.")
    decided_by = models.CharField(
        max_length=300,
        help_text="How it was decided: the account's creation, a verification "
        "file at a commit, an operator, or the skills published before namespaces existed.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("name",)
        permissions = [("assign_namespace", "Can give a namespace to another account")]

    def __str__(self) -> str:
        source = f"{self.host}/{self.git_owner}" if self.kind == self.Kind.GIT else "account"
        return f"{self.name} ({source})"
