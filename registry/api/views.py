"""Public, read-only registry endpoints."""

from __future__ import annotations

from rest_framework import generics, permissions

from registry import selectors
from registry.api.serializers import (
    SkillDetailSerializer,
    SkillSummarySerializer,
    VersionDetailSerializer,
)


class SkillList(generics.ListAPIView):
    """Published skills, by owner and name."""

    permission_classes = [permissions.AllowAny]
    serializer_class = SkillSummarySerializer

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return selectors.published_skills().order_by("owner", "name")


class SkillDetail(generics.RetrieveAPIView):
    """One published skill with all its versions, newest first."""

    permission_classes = [permissions.AllowAny]
    serializer_class = SkillDetailSerializer

    def get_object(self):  # type: ignore[no-untyped-def]
        return selectors.skill_by_name(self.kwargs["owner"], self.kwargs["name"])


class SkillVersionDetail(generics.RetrieveAPIView):
    """One immutable version with its files and the bundle's sha256."""

    permission_classes = [permissions.AllowAny]
    serializer_class = VersionDetailSerializer

    def get_object(self):  # type: ignore[no-untyped-def]
        return selectors.skill_version(
            self.kwargs["owner"], self.kwargs["name"], self.kwargs["version"]
        )
