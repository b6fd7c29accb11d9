"""Joins the search index (0010_skill_search) and the namespace and quarantine rules
(0010_quarantined_files_are_never_published … 0013), made side by side; neither touches what
the other does."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0010_skill_search"),
        ("registry", "0013_operators_assign_namespaces"),
    ]

    operations = []
