"""Usernames unique ignoring case, and a namespace for every owner name already in use.

Accounts whose usernames differ only in case (``Race0`` and ``race0``) shared one owner name,
``race0``. The oldest keeps its name; each later one is renamed ``<name>-<id>`` (printed, so an
operator can tell its holder), and a unique index on ``lower(username)`` refuses the next clash
whatever creates the account.

Then every owner name in use gets its namespace (``registry.namespaces``): a name with skills
of an account goes to that account (the one of that name); a name with only git skills to the
git owner on the host of its first skill, the account whose submission created that skill's
first version publishing there. Look-alike names that both exist already are kept (their
skeletons made distinct); no new one can appear. Finally every other account gets its own name
when that is a valid owner name and nobody holds it or a look-alike.
"""

import re

from django.db import migrations
from django.db.models.functions import Lower

from registry.namespaces import skeleton

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")
BEFORE = "skills published before namespaces existed"


def rename_case_clashes(apps, schema_editor):
    user_model = apps.get_model("auth", "User")
    taken = set(user_model.objects.annotate(low=Lower("username")).values_list("low", flat=True))
    seen: set[str] = set()
    for user in user_model.objects.order_by("id"):
        lowered = user.username.lower()
        if lowered not in seen:
            seen.add(lowered)
            continue
        new = f"{user.username}-{user.pk}"[:150]
        while new.lower() in taken:
            new = f"{new}-"[:150]
        print(
            f"\n  account {user.username!r} (id {user.pk}) renamed {new!r}: its name differed "
            "from an older account's only in case"
        )
        taken.add(new.lower())
        user.username = new
        user.save(update_fields=["username"])


def create_namespaces(apps, schema_editor):
    user_model = apps.get_model("auth", "User")
    skill_model = apps.get_model("registry", "Skill")
    version_model = apps.get_model("registry", "SkillVersion")
    namespace_model = apps.get_model("registry", "Namespace")
    skeletons = set(namespace_model.objects.values_list("skeleton", flat=True))
    names = set(namespace_model.objects.values_list("name", flat=True))

    def store(name: str, **fields) -> None:
        folded = skeleton(name)
        if folded in skeletons:
            folded = f"{folded}~{name}"[:100]  # both existed already: kept, told apart
        namespace_model.objects.create(name=name, skeleton=folded, **fields)
        skeletons.add(folded)
        names.add(name)

    for owner in skill_model.objects.order_by("owner").values_list("owner", flat=True).distinct():
        if owner in names:
            continue
        skills = skill_model.objects.filter(owner=owner).order_by("id")
        by_account = skills.filter(origin="account").first()
        if by_account is not None:
            holder = user_model.objects.filter(username__iexact=owner).order_by("id").first()
            store(
                owner,
                kind="account",
                account_id=holder.pk if holder else by_account.owner_account_id,
                decided_by=BEFORE,
            )
            continue
        first = skills.first()
        version = version_model.objects.filter(skill_id=first.pk).order_by("id").first()
        store(
            owner,
            kind="git",
            host=first.host.lower(),
            git_owner=owner,
            account_id=version.submitter_id if version else None,
            decided_by=BEFORE,
        )
    for user in user_model.objects.order_by("id"):
        name = user.username.lower()
        if name in names or not name.isascii() or not _NAME.fullmatch(name):
            continue
        if skeleton(name) in skeletons:
            continue
        store(name, kind="account", account_id=user.pk, decided_by="the account's name")


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0011_namespaces"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(rename_case_clashes, migrations.RunPython.noop),
        migrations.RunSQL(
            "CREATE UNIQUE INDEX auth_user_username_ignoring_case ON auth_user (lower(username))",
            "DROP INDEX auth_user_username_ignoring_case",
        ),
        migrations.RunPython(create_namespaces, migrations.RunPython.noop),
    ]
