"""The advisories as an Atom feed, for feed readers and mirrors that poll."""

from __future__ import annotations

from datetime import datetime

from django.contrib.syndication.views import Feed
from django.template.defaultfilters import linebreaksbr
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from registry import selectors
from registry.models import VersionEvent

FEED_ENTRIES = 50


class AdvisoryFeed(Feed):
    """The newest advisories: quarantines (remove the version) and restorations."""

    feed_type = Atom1Feed
    title = "Skillgate advisories"
    subtitle = "Skill versions quarantined by Security or by a re-scan, and restorations."

    def link(self) -> str:
        return reverse("advisory-list")

    def feed_url(self) -> str:
        return reverse("advisory-feed")

    def items(self) -> list[VersionEvent]:
        return list(selectors.advisories()[:FEED_ENTRIES])

    def item_title(self, item: VersionEvent) -> str:
        verb = "Quarantined" if item.action == VersionEvent.Action.QUARANTINE else "Restored"
        return f"{verb}: {item.version}"

    def item_description(self, item: VersionEvent) -> str:
        """Atom summaries are HTML: the reason is escaped, never markup."""
        text = f"{item.reason}\n\nWhat to do: {selectors.advice(item).text}"
        return linebreaksbr(text, autoescape=True)

    def item_link(self, item: VersionEvent) -> str:
        return reverse("advisory-detail", args=[item.pk])

    def item_pubdate(self, item: VersionEvent) -> datetime:
        return item.created_at

    def item_updateddate(self, item: VersionEvent) -> datetime:
        return item.created_at

    def item_categories(self, item: VersionEvent) -> tuple[str, ...]:
        return (item.action,)
