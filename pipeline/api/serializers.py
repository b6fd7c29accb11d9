"""Submission API shapes (snake_case JSON)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from pipeline.explanations import deciding_reasons
from pipeline.models import ScanResult, Submission, SubmissionStateEvent
from pipeline.outcomes import OutcomeCode, OutcomeKind
from pipeline.selectors import staleness
from reviews.selectors import event_as_seen_by, review_for_submitter


class StrictTextField(serializers.CharField):
    """A file's text: must be a JSON string (no numbers coerced), kept byte for byte."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError("must be the file's text as a string")
        return super().to_internal_value(data)


class SubmissionCreateSerializer(serializers.Serializer):
    files = serializers.DictField(
        child=StrictTextField(),
        required=False,
        help_text='Inline source: {"SKILL.md": "…", "scripts/run.py": "…"}.',
    )
    repo_url = serializers.CharField(
        required=False, allow_blank=True, max_length=500, help_text="Git source: https URL."
    )
    skill_path = serializers.CharField(
        required=False, allow_blank=True, max_length=255, help_text="Folder of the skill."
    )
    ref = serializers.CharField(
        required=False, allow_blank=True, max_length=255, help_text="Branch, tag or commit."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(self.initial_data, dict):
            raise serializers.ValidationError("send a JSON object")
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(
                {
                    name: ["unknown field; allowed: files, repo_url, skill_path, ref"]
                    for name in unknown
                }
            )
        return attrs


class EventSerializer(serializers.ModelSerializer):
    """An audit event; to an author, reviewers appear as "a reviewer" unless the site shows
    their names (``reviews.selectors.event_as_seen_by``, given the viewer as ``request``)."""

    class Meta:
        model = SubmissionStateEvent
        fields = (
            "from_state",
            "to_state",
            "trigger",
            "actor",
            "actor_type",
            "metadata",
            "created_at",
        )

    def to_representation(self, instance: SubmissionStateEvent) -> dict[str, Any]:
        shown = dict(super().to_representation(instance))
        request = self.context.get("request")
        return event_as_seen_by(shown, request.user) if request is not None else shown


class OutcomeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=OutcomeKind.choices,
        help_text="verdict: about the skill; error: our failure, submit again.",
    )
    code = serializers.ChoiceField(choices=OutcomeCode.choices)
    message = serializers.CharField(help_text="What happened and what to do, in words.")


class FindingSerializer(serializers.Serializer):
    """One Tier 1 rule hit."""

    rule_id = serializers.CharField()
    category = serializers.CharField()
    severity = serializers.ChoiceField(choices=["info", "low", "medium", "high", "critical"])
    confidence = serializers.ChoiceField(choices=["low", "medium", "high"])
    file = serializers.CharField()
    line = serializers.IntegerField(help_text="1-based; 0 for a finding about the whole file.")
    column = serializers.IntegerField()
    snippet = serializers.CharField(help_text="The text the rule matched.")
    message = serializers.CharField()
    remediation = serializers.CharField(help_text="How to fix it.")
    span = serializers.CharField(
        help_text="The kind of text the hit was in: instruction, shipped_code, discussion, …"
    )


class ConcernSerializer(serializers.Serializer):
    """One concern of the Tier 2 judge."""

    category = serializers.CharField()
    severity = serializers.CharField()
    file = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    evidence = serializers.CharField()


class DecidingReasonSerializer(serializers.Serializer):
    """One thing that decided the outcome, where it is and how to fix it."""

    # The API's field is named "source"; DRF's Field.source is another (instance) attribute.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["tier1", "judge", "policy"],
        help_text="tier1: a rule's finding; judge: a Tier 2 concern; policy: the decision's rule.",
    )
    rule = serializers.CharField()
    severity = serializers.CharField(allow_blank=True)
    file = serializers.CharField(allow_blank=True)
    line = serializers.IntegerField(allow_null=True)
    line_text = serializers.CharField(allow_blank=True, help_text="The line itself.")
    message = serializers.CharField()
    fix = serializers.CharField(allow_blank=True)


class ReviewDecisionSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["approved", "rejected"])
    reason = serializers.CharField(allow_blank=True)
    by = serializers.CharField(
        allow_null=True, help_text='The reviewer; "a reviewer" unless the site shows names.'
    )
    at = serializers.DateTimeField(allow_null=True)


class ReviewForAuthorSerializer(serializers.Serializer):
    status = serializers.CharField()
    assignee = serializers.CharField(
        allow_null=True, help_text='"a reviewer" unless the site shows reviewers\' names.'
    )
    due_at = serializers.DateTimeField(allow_null=True)
    escalated = serializers.BooleanField()
    decision = ReviewDecisionSerializer(allow_null=True)


class _ScanSerializer(serializers.Serializer):
    """One tier's verdict for a submission, with what produced it."""

    verdict = serializers.CharField(source="result.verdict")
    catalogue_version = serializers.CharField(
        source="result.catalogue_version", help_text="The Tier 1 rule catalogue that ran."
    )
    duration_ms = serializers.FloatField(source="result.duration_ms")
    is_late = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class Tier1ScanSerializer(_ScanSerializer):
    findings = serializers.SerializerMethodField()
    high_privilege = serializers.SerializerMethodField()
    privileges = serializers.SerializerMethodField()

    @extend_schema_field(FindingSerializer(many=True))
    def get_findings(self, scan: ScanResult) -> list[dict[str, Any]]:
        return [finding.to_dict() for finding in scan.result.tier1_report.findings]

    def get_high_privilege(self, scan: ScanResult) -> bool:
        return scan.result.tier1_report.high_privilege

    def get_privileges(self, scan: ScanResult) -> list[str]:
        return list(scan.result.tier1_report.privileges)


class Tier2ScanSerializer(_ScanSerializer):
    score = serializers.IntegerField(source="result.score")
    decision = serializers.CharField(source="result.decision")
    judge_version = serializers.CharField(
        source="result.judge_version", help_text="Provider, model and weights or prompt version."
    )
    thresholds = serializers.SerializerMethodField()
    concerns = serializers.SerializerMethodField()
    criteria = serializers.SerializerMethodField()
    confidence = serializers.SerializerMethodField()
    reasons = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_thresholds(self, scan: ScanResult) -> dict[str, int]:
        """The decision policy's thresholds when this verdict was taken."""
        return scan.result.tier2_record.thresholds.to_dict()

    @extend_schema_field(ConcernSerializer(many=True))
    def get_concerns(self, scan: ScanResult) -> list[dict[str, Any]]:
        return [c.to_dict() for c in scan.result.tier2_record.judgement.concerns]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_criteria(self, scan: ScanResult) -> dict[str, int]:
        return dict(scan.result.tier2_record.judgement.criteria)

    def get_confidence(self, scan: ScanResult) -> float:
        return scan.result.tier2_record.judgement.confidence

    def get_reasons(self, scan: ScanResult) -> list[str]:
        return list(scan.result.tier2_record.decision.reasons)


class PublishedVersionSerializer(serializers.Serializer):
    version = serializers.CharField()
    url = serializers.CharField()


class StalenessSerializer(serializers.Serializer):
    stale = serializers.BooleanField()
    stale_since = serializers.DateTimeField()
    stale_stage = serializers.CharField()
    message = serializers.CharField()


class ScansSerializer(serializers.Serializer):
    tier1 = Tier1ScanSerializer(allow_null=True, help_text="Tier 1 (rules); null until scanned.")
    tier2 = Tier2ScanSerializer(allow_null=True, help_text="Tier 2 (judge); null until judged.")
    late = serializers.ListField(
        child=serializers.DictField(),
        help_text="Results that arrived after the submission had ended (kept, changing nothing).",
    )


class SubmissionSummarySerializer(serializers.ModelSerializer):
    skill = serializers.SerializerMethodField()
    outcome = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields: tuple[str, ...] = (
            "id",
            "url",
            "state",
            "skill",
            "outcome",
            "created_at",
            "updated_at",
        )

    @extend_schema_field(
        {"type": "object", "properties": {"owner": {"type": "string"}, "name": {"type": "string"}}}
    )
    def get_skill(self, submission: Submission) -> dict[str, str]:
        return {"owner": submission.skill_owner, "name": submission.skill_name}

    @extend_schema_field(OutcomeSerializer(allow_null=True))
    def get_outcome(self, submission: Submission) -> dict[str, str] | None:
        outcome = submission.outcome
        return outcome.as_dict() if outcome else None

    def get_url(self, submission: Submission) -> str:
        return reverse(
            "submission-detail", args=[submission.pk], request=self.context.get("request")
        )


class SubmissionDetailSerializer(SubmissionSummarySerializer):
    # The API's field is named "source"; DRF's Field.source is another (instance) attribute.
    source = serializers.SerializerMethodField()  # type: ignore[assignment]
    bundle_sha256 = serializers.CharField(source="bundle_id")
    scans = serializers.SerializerMethodField()
    version = serializers.SerializerMethodField()
    staleness = serializers.SerializerMethodField()
    review = serializers.SerializerMethodField()
    deciding = serializers.SerializerMethodField()

    class Meta(SubmissionSummarySerializer.Meta):
        fields = (
            "id", "url", "state", "skill", "source", "bundle_sha256", "outcome", "deciding",
            "scans", "review", "version", "staleness", "deadline_at", "created_at", "updated_at",
        )  # fmt: skip

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_source(self, submission: Submission) -> dict[str, str]:
        if submission.source_kind == Submission.SourceKind.INLINE:
            return {"kind": "inline"}
        return {
            "kind": "git",
            "repo_url": submission.repo_url,
            "skill_path": submission.skill_path,
            "ref": submission.ref,
            "commit": submission.resolved_commit,
        }

    @extend_schema_field(ScansSerializer)
    def get_scans(self, submission: Submission) -> dict[str, Any]:
        scans = list(submission.scans.all())
        current = {scan.tier: scan for scan in scans if not scan.is_late}
        late = [scan for scan in scans if scan.is_late]
        tier1, tier2 = current.get(ScanResult.Tier.TIER1), current.get(ScanResult.Tier.TIER2)
        return {
            "tier1": Tier1ScanSerializer(tier1).data if tier1 else None,
            "tier2": Tier2ScanSerializer(tier2).data if tier2 else None,
            "late": [
                (Tier1ScanSerializer if scan.tier == 1 else Tier2ScanSerializer)(scan).data
                for scan in late
            ],
        }

    @extend_schema_field(PublishedVersionSerializer(allow_null=True))
    def get_version(self, submission: Submission) -> dict[str, str] | None:
        """The version it published (null until published)."""
        version = submission.published_version
        if version is None:
            return None
        skill = version.skill
        return {
            "version": version.version,
            "url": reverse(
                "skill-version",
                args=[skill.owner, skill.name, version.version],
                request=self.context.get("request"),
            ),
        }

    @extend_schema_field(StalenessSerializer(allow_null=True))
    def get_staleness(self, submission: Submission) -> dict[str, object] | None:
        """Set once the submission made no progress for 3 minutes in an automated stage."""
        return staleness(submission, timezone.now())

    @extend_schema_field(ReviewForAuthorSerializer(allow_null=True))
    def get_review(self, submission: Submission) -> dict[str, object] | None:
        """The Tier 3 review: status, assignee, due date, escalated, decision (or null)."""
        request = self.context.get("request")
        viewer = request.user if request is not None else AnonymousUser()
        return review_for_submitter(submission, viewer)

    @extend_schema_field(DecidingReasonSerializer(many=True))
    def get_deciding(self, submission: Submission) -> list[dict[str, Any]]:
        """What decided the outcome when the skill was not simply published: each finding with
        its file, line, the line itself and the fix (empty while on its way or published)."""
        return [reason.to_dict() for reason in deciding_reasons(submission)]
