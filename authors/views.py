"""The author's pages: thin views over ``authors.pages``, ``registry.lifecycle``,
``reviews.appeals`` and ``accounts.tokens``. Every page needs a signed-in account and shows
only its own records."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts import tokens
from accounts.models import ApiToken
from authors import pages
from authors.forms import AppealForm, ReasonForm, TokenForm
from config.accounts import signed_in
from registry import lifecycle
from registry.lifecycle import VersionStatusError
from reviews import appeals
from reviews.services import ActionUnavailable, ReviewForbidden


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("authors:submissions")


@login_required
def submissions(request: HttpRequest) -> HttpResponse:
    page = Paginator(pages.submissions_of(signed_in(request.user)), pages.SUBMISSIONS_PER_PAGE)
    return render(
        request,
        "authors/submissions.html",
        {"page": page.get_page(request.GET.get("page")), "section": "submissions"},
    )


@login_required
def submission(request: HttpRequest, submission_id: UUID) -> HttpResponse:
    return _submission_page(request, submission_id, AppealForm())


def _submission_page(request: HttpRequest, submission_id: UUID, form: AppealForm) -> HttpResponse:
    return render(
        request,
        "authors/submission.html",
        {
            "page": pages.submission_page(signed_in(request.user), submission_id),
            "appeal_form": form,
            "section": "submissions",
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def appeal(request: HttpRequest, submission_id: UUID) -> HttpResponse:
    user = signed_in(request.user)
    pages.submission_page(user, submission_id)
    form = AppealForm(request.POST)
    if not form.is_valid():
        return _submission_page(request, submission_id, form)
    try:
        appeals.file_appeal(submission_id, user, form.cleaned_data["reason"])
    except (ReviewForbidden, ActionUnavailable) as refused:
        messages.error(request, f"The appeal was not filed: {refused}")
    except ValidationError as invalid:
        form.add_error(None, invalid)
        return _submission_page(request, submission_id, form)
    else:
        messages.success(request, "Your appeal is filed; the Security team decides it.")
    return HttpResponseRedirect(reverse("authors:submission", args=[submission_id]))


@login_required
def skills(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "authors/skills.html",
        {"skills": pages.skills_of(signed_in(request.user)), "section": "skills"},
    )


@login_required
@require_POST
def change_version(
    request: HttpRequest, owner: str, name: str, version: str, action: str
) -> HttpResponse:
    user = signed_in(request.user)
    found = pages.own_version(user, owner, name, version)
    form = ReasonForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        lifecycle.change_status(found.pk, action, lifecycle.Actor.account(user), reason)
    except (PermissionDenied, VersionStatusError) as refused:
        messages.error(request, f"{found}: {refused}")
    except ValidationError as invalid:
        messages.error(request, f"{found}: {'; '.join(invalid.messages)}")
    else:
        done = "yanked" if action == lifecycle.Action.YANK else "unyanked"
        messages.success(request, f"{found} is {done}.")
    return HttpResponseRedirect(reverse("authors:skills"))


NEW_TOKEN_TAG = "new-token"
"""Marks the message that carries a new token's key to the page that shows it once."""


@never_cache
@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    """The tokens, and the form to make one. A new token's key travels to the next page view
    in a message (a signed cookie, never the database) and is shown on that one view only;
    the form is answered with a redirect, so reloading the page makes no second token."""
    user = signed_in(request.user)
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            issued = tokens.issue(
                user,
                form.cleaned_data["name"],
                form.cleaned_data["scopes"],
                form.cleaned_data["days"],
            )
        except tokens.TokenRefused as refused:
            form.add_error(None, str(refused))
        else:
            made = issued.token
            messages.success(
                request,
                f"Made the token {made.name!r} ({', '.join(made.scopes)}; until "
                f"{made.expires_at:%Y-%m-%d}). Copy it now: it is not shown again.",
            )
            messages.info(request, issued.key, extra_tags=NEW_TOKEN_TAG)
            return HttpResponseRedirect(reverse("authors:tokens"))
    return render(
        request,
        "authors/tokens.html",
        {
            "form": form,
            "tokens": tokens.tokens_of(user),
            "legacy": tokens.legacy_token_of(user),
            "new_token_tag": NEW_TOKEN_TAG,
            "section": "tokens",
        },
    )


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        revoked = tokens.revoke(signed_in(request.user), token_id)
    except ApiToken.DoesNotExist:
        messages.error(request, "You have no active token with this id.")
    else:
        messages.success(request, f"The token {revoked.name!r} is revoked: it no longer works.")
    return HttpResponseRedirect(reverse("authors:tokens"))


@login_required
@require_POST
def legacy_token_revoke(request: HttpRequest) -> HttpResponse:
    if tokens.revoke_legacy(signed_in(request.user)):
        messages.success(request, "Your legacy token is revoked: it no longer works.")
    return HttpResponseRedirect(reverse("authors:tokens"))
