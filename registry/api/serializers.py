"""Public registry shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from registry import archives, selectors
from registry.lifecycle import REASON_MAX_LENGTH
from registry.models import Skill, SkillVersion, VersionEvent, VersionStatus


def _version_url(
    version: SkillVersion, context: Mapping[str, Any], view: str = "skill-version"
) -> str:
    skill = version.skill
    return reverse(
        view, args=[skill.owner, skill.name, version.version], request=context.get("request")
    )


class ReplacementSerializer(serializers.Serializer):
    version = serializers.CharField()
    url = serializers.CharField()


class AdvisorySerializer(serializers.ModelSerializer):
    """A quarantine or a restoration, with what to do about it today."""

    url = serializers.SerializerMethodField()
    kind = serializers.CharField(source="action", help_text="quarantine or restore")
    owner = serializers.CharField(source="version.skill.owner")
    name = serializers.CharField(source="version.skill.name")
    version = serializers.CharField(source="version.version")
    version_url = serializers.SerializerMethodField()
    status = serializers.CharField(
        source="version.status",
        help_text="The version's status now: published, yanked or quarantined.",
    )
    issued_at = serializers.DateTimeField(source="created_at")
    issued_by = serializers.SerializerMethodField()
    action_required = serializers.SerializerMethodField()
    replacement = serializers.SerializerMethodField()

    class Meta:
        model = VersionEvent
        fields = (
            "id", "url", "kind", "owner", "name", "version", "version_url", "status",
            "issued_at", "issued_by", "reason", "action_required", "replacement",
        )  # fmt: skip

    def get_url(self, event: VersionEvent) -> str:
        return reverse("advisory-detail", args=[event.pk], request=self.context.get("request"))

    def get_version_url(self, event: VersionEvent) -> str:
        return _version_url(event.version, self.context)

    def get_issued_by(self, event: VersionEvent) -> str:
        """Who issued it: "security" (a person of the Security group) or "system" (a re-scan)."""
        return "system" if event.actor_type == VersionEvent.ActorType.SYSTEM else "security"

    def get_action_required(self, event: VersionEvent) -> str:
        return selectors.advice(event).text

    @extend_schema_field(ReplacementSerializer(allow_null=True))
    def get_replacement(self, event: VersionEvent) -> dict[str, str] | None:
        replacement = selectors.advice(event).replacement
        if replacement is None:
            return None
        return {"version": replacement.version, "url": _version_url(replacement, self.context)}


class VersionSummarySerializer(serializers.ModelSerializer):
    bundle_sha256 = serializers.CharField(source="bundle_id")
    url = serializers.SerializerMethodField()

    class Meta:
        model = SkillVersion
        fields = (
            "version", "url", "status", "status_reason", "bundle_sha256", "channel",
            "published_at",
        )  # fmt: skip

    def get_url(self, version: SkillVersion) -> str:
        return _version_url(version, self.context)


class SkillSummarySerializer(serializers.ModelSerializer):
    latest_version = serializers.CharField(
        allow_null=True, help_text="The newest published version; null when all are yanked."
    )
    updated_at = serializers.DateTimeField(source="latest_published_at", allow_null=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Skill
        fields: tuple[str, ...] = (
            "owner", "name", "description", "latest_version", "updated_at", "url",
        )  # fmt: skip

    def get_url(self, skill: Skill) -> str:
        return reverse(
            "skill-detail", args=[skill.owner, skill.name], request=self.context.get("request")
        )


class SkillDetailSerializer(SkillSummarySerializer):
    versions = serializers.SerializerMethodField()

    class Meta(SkillSummarySerializer.Meta):
        fields = (*SkillSummarySerializer.Meta.fields, "versions")

    @extend_schema_field(VersionSummarySerializer(many=True))
    def get_versions(self, skill: Skill) -> Any:
        """Published and yanked versions, newest first; quarantined ones are not listed."""
        versions = selectors.listed_versions(skill).select_related("skill")
        return VersionSummarySerializer(versions, many=True, context=self.context).data


class VersionDetailSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="skill.owner")
    name = serializers.CharField(source="skill.name")
    description = serializers.CharField(source="skill.description")
    bundle_sha256 = serializers.CharField(source="bundle_id")
    archive_url = serializers.SerializerMethodField()
    archive_sha256 = serializers.SerializerMethodField()
    advisory = serializers.SerializerMethodField()
    files = serializers.SerializerMethodField()

    class Meta:
        model = SkillVersion
        fields = (
            "owner", "name", "description", "version", "status", "status_reason",
            "status_changed_at", "bundle_sha256", "channel", "published_at", "archive_url",
            "archive_sha256", "advisory", "files",
        )  # fmt: skip

    def get_archive_url(self, version: SkillVersion) -> str:
        return _version_url(version, self.context, "skill-version-archive")

    def get_archive_sha256(self, version: SkillVersion) -> str:
        """The sha256 of the archive at ``archive_url`` (kept for a quarantined version too, so
        the bad archive can be recognised)."""
        return archives.sha256_of(version.bundle.as_bundle())

    @extend_schema_field(AdvisorySerializer(allow_null=True))
    def get_advisory(self, version: SkillVersion) -> dict[str, Any] | None:
        """Why the version is quarantined and what to do (null unless quarantined)."""
        event = selectors.advisory_for(version)
        return AdvisorySerializer(event, context=self.context).data if event else None

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "size": {"type": "integer"},
                    "sha256": {"type": "string"},
                    "text": {"type": "string"},
                    "base64": {"type": "string"},
                },
                "required": ["path", "size", "sha256"],
            },
        }
    )
    def get_files(self, version: SkillVersion) -> list[dict[str, Any]]:
        """Every file with its content; for a quarantined version only paths, sizes and sha256
        (its content is withheld like its archive)."""
        files: list[dict[str, Any]] = version.bundle.files
        if version.status != VersionStatus.QUARANTINED:
            return files
        return [{key: entry[key] for key in ("path", "size", "sha256")} for entry in files]


class StatusChangeSerializer(serializers.Serializer):
    """The body of a status change; whether a reason is required is the lifecycle's rule."""

    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=REASON_MAX_LENGTH,
        trim_whitespace=True,
        help_text="Why; required to quarantine or restore (it is published in the advisory).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {name: ["unknown field; allowed: reason"] for name in unknown}
            )
        return attrs


class SkillFilterSerializer(serializers.Serializer):
    """Exact filters of the skill and advisory lists, checked before any query (no NUL
    characters, bounded lengths)."""

    owner = serializers.CharField(required=False, max_length=100, help_text="Exactly this owner.")
    name = serializers.CharField(required=False, max_length=64, help_text="Exactly this name.")


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(
        max_length=500, trim_whitespace=True, help_text="The words to look for."
    )
