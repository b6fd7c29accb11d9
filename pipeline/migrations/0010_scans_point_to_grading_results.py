"""Scan results become links to grading results keyed by what produced them.

Each existing scan row becomes a ``registry.GradingResult`` (its report rebuilt from the
columns the row had; results written before catalogue versions existed are marked
``legacy-…``), the row points to it, and the published version made from the submission points
to its submission's results as its current verdict.
"""

import django.db.models.deletion
from django.db import migrations, models


def _tier1_report(scan):
    return {
        "verdict": scan.verdict,
        "findings": scan.findings,
        "high_privilege": bool(scan.details.get("high_privilege")),
        "privileges": list(scan.details.get("privileges", [])),
        "engine_version": scan.engine_version,
        "duration_ms": scan.duration_ms,
        "catalogue_version": f"legacy-{scan.engine_version}",
    }


def _tier2_report(scan):
    details = scan.details
    model, _, prompt = scan.engine_version.partition(" ")
    return {
        "judgement": {
            "score": scan.score or 0,
            "verdict": scan.verdict,
            "concerns": scan.findings,
            "criteria": details.get("criteria", {}),
            "confidence": details.get("confidence", 0.0),
            "provider": scan.engine,
            "model": model,
            "prompt_version": details.get("prompt_version", prompt),
            "duration_ms": scan.duration_ms,
            "notes": details.get("notes", {}),
            "judge_version": f"legacy-{scan.engine}/{scan.engine_version}",
        },
        "decision": {"outcome": details.get("decision", ""), "reasons": details.get("reasons", [])},
        "thresholds": {"auto_approve_min": 80, "review_min": 60},
    }


def link_scans_to_results(apps, schema_editor):
    ScanResult = apps.get_model("pipeline", "ScanResult")
    GradingResult = apps.get_model("registry", "GradingResult")
    SkillVersion = apps.get_model("registry", "SkillVersion")
    for scan in ScanResult.objects.select_related("submission").iterator():
        tier1 = scan.tier == 1
        report = _tier1_report(scan) if tier1 else _tier2_report(scan)
        catalogue = f"legacy-{scan.engine_version}" if tier1 else "legacy"
        judge = "" if tier1 else report["judgement"]["judge_version"]
        result, _ = GradingResult.objects.get_or_create(
            bundle_id=scan.submission.bundle_id,
            tier=scan.tier,
            catalogue_version=catalogue,
            judge_version=judge,
            defaults={
                "verdict": scan.verdict,
                "score": scan.score,
                "decision": "" if tier1 else report["decision"]["outcome"],
                "report": report,
                "duration_ms": scan.duration_ms,
            },
        )
        scan.result = result
        scan.save(update_fields=["result"])
        if not scan.is_late:
            field = "tier1_result" if tier1 else "tier2_result"
            SkillVersion.objects.filter(submission_id=scan.submission_id).update(**{field: result})


class Migration(migrations.Migration):
    dependencies = [
        ("pipeline", "0009_merge_descriptions_and_operators"),
        ("registry", "0006_grading_results"),
    ]

    operations = [
        migrations.AddField(
            model_name="scanresult",
            name="result",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scans",
                to="registry.gradingresult",
            ),
        ),
        migrations.RunPython(link_scans_to_results, migrations.RunPython.noop),
    ]
