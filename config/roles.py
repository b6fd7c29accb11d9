"""The two staff roles by name, where every app may read them.

The groups and their permissions are created by a migration in ``reviews`` (``reviews.roles``);
the names live here so that apps below ``reviews`` (``registry``) can check the Security role
without importing it. A role is a permission, not a group name, so superusers hold every role.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, PermissionsMixin

REVIEWERS_GROUP = "Reviewers"
SECURITY_GROUP = "Security"

VIEW_PERMISSION = "reviews.view_review"
ACT_PERMISSION = "reviews.act_on_review"
# Held by the Security group only: deciding escalated reviews, quarantining and restoring
# published versions.
SECURITY_PERMISSION = "reviews.decide_escalated_review"


def is_security(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """True for active members of the Security group (and superusers); never anonymous."""
    return (
        isinstance(user, PermissionsMixin) and user.is_active and user.has_perm(SECURITY_PERMISSION)
    )
