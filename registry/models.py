"""Registry records: content-addressed bundle snapshots, skills, their immutable versions, and
the trusted organisations whose submissions take the vendor fast path."""

from __future__ import annotations

from django.db import models
from django.db.models.functions import Lower

from registry.bundles import Bundle


class BundleSnapshot(models.Model):
    """The files of a skill exactly as fetched once; every tier and the version read this."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    files = models.JSONField(help_text="Canonical file list: path, size, sha256, text|base64.")
    file_count = models.PositiveIntegerField()
    total_bytes = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "bundle snapshot"

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.file_count} files, {self.total_bytes} bytes)"

    def as_bundle(self) -> Bundle:
        return Bundle.from_json(self.files)


class Skill(models.Model):
    """A named skill; ``owner`` is the git repository owner or the submitter's username."""

    class Origin(models.TextChoices):
        GIT = "git", "Git repository owner"
        ACCOUNT = "account", "Registry account"

    owner = models.CharField(max_length=100, help_text="Lowercase.")
    name = models.CharField(max_length=64)
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


class SkillVersion(models.Model):
    """One immutable published version; created once per submission that changed the bundle."""

    class Channel(models.TextChoices):
        VENDOR = "vendor", "Vendor fast path"
        AUTOMATIC = "automatic", "Automatically approved"
        REVIEW = "review", "Approved by a reviewer"

    skill = models.ForeignKey(Skill, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=64)
    bundle = models.ForeignKey(BundleSnapshot, on_delete=models.PROTECT, related_name="+")
    submission = models.OneToOneField(
        "pipeline.Submission", on_delete=models.PROTECT, related_name="created_version"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    published_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint("skill", "version", name="skill_version_unique"),
        ]
        ordering = ("skill", "-id")

    def __str__(self) -> str:
        return f"{self.skill}@{self.version}"


class TrustedOrg(models.Model):
    """A repository owner whose submissions skip scanning (seed 000 §3). Matched ignoring case."""

    name = models.CharField(max_length=100)
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("name"), name="trusted_org_name_unique"),
        ]
        ordering = ("name",)
        verbose_name = "trusted organisation"

    def __str__(self) -> str:
        return self.name
