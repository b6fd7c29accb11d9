"""The scan row's own copy of the verdict goes: the grading result it points to holds it.

Separate from 0010 so that PostgreSQL never alters the table in the transaction that filled it.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("pipeline", "0010_scans_point_to_grading_results")]

    operations = [
        migrations.RemoveField(model_name="scanresult", name="details"),
        migrations.RemoveField(model_name="scanresult", name="duration_ms"),
        migrations.RemoveField(model_name="scanresult", name="engine"),
        migrations.RemoveField(model_name="scanresult", name="engine_version"),
        migrations.RemoveField(model_name="scanresult", name="findings"),
        migrations.RemoveField(model_name="scanresult", name="score"),
        migrations.RemoveField(model_name="scanresult", name="verdict"),
        migrations.AlterField(
            model_name="scanresult",
            name="result",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scans",
                to="registry.gradingresult",
            ),
        ),
    ]
