"""Public registry shapes."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.reverse import reverse

from registry.models import Skill, SkillVersion


class VersionSummarySerializer(serializers.ModelSerializer):
    bundle_sha256 = serializers.CharField(source="bundle_id")
    url = serializers.SerializerMethodField()

    class Meta:
        model = SkillVersion
        fields = ("version", "url", "bundle_sha256", "channel", "published_at")

    def get_url(self, version: SkillVersion) -> str:
        return reverse(
            "skill-version",
            args=[self.context["skill"].owner, self.context["skill"].name, version.version],
            request=self.context.get("request"),
        )


class SkillSummarySerializer(serializers.ModelSerializer):
    latest_version = serializers.CharField()
    updated_at = serializers.DateTimeField(source="latest_published_at")
    url = serializers.SerializerMethodField()

    class Meta:
        model = Skill
        fields = ("owner", "name", "description", "latest_version", "updated_at", "url")

    def get_url(self, skill: Skill) -> str:
        return reverse(
            "skill-detail", args=[skill.owner, skill.name], request=self.context.get("request")
        )


class SkillDetailSerializer(SkillSummarySerializer):
    versions = serializers.SerializerMethodField()

    class Meta(SkillSummarySerializer.Meta):
        fields = (*SkillSummarySerializer.Meta.fields, "versions")

    def get_versions(self, skill: Skill) -> list[dict]:
        context = {**self.context, "skill": skill}
        return VersionSummarySerializer(skill.versions.all(), many=True, context=context).data


class VersionDetailSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="skill.owner")
    name = serializers.CharField(source="skill.name")
    description = serializers.CharField(source="skill.description")
    bundle_sha256 = serializers.CharField(source="bundle_id")
    files = serializers.JSONField(source="bundle.files")

    class Meta:
        model = SkillVersion
        fields = (
            "owner",
            "name",
            "description",
            "version",
            "bundle_sha256",
            "channel",
            "published_at",
            "files",
        )
