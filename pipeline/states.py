"""The submission state machine of seed 000 §2, plus DESIGN.md's two documented extensions and
the appeal (docs/reviewing.md)."""

from __future__ import annotations

from django.db import models


class State(models.TextChoices):
    RECEIVED = "RECEIVED"
    TIER1_SCANNING = "TIER1_SCANNING"
    TIER1_FAILED = "TIER1_FAILED"
    TIER2_SCANNING = "TIER2_SCANNING"
    AUTO_APPROVED = "AUTO_APPROVED"
    NEEDS_REVIEW = "NEEDS_REVIEW"
    TIER3_REVIEW = "TIER3_REVIEW"
    PUBLISHED = "PUBLISHED"
    REJECTED = "REJECTED"
    VENDOR_APPROVED = "VENDOR_APPROVED"


class ActorType(models.TextChoices):
    SYSTEM = "system"
    WORKER = "worker"
    ADMIN = "admin"


# Seed 000 §2.4 VALID_TRANSITIONS, verbatim.
SEED_TRANSITIONS: dict[State, frozenset[State]] = {
    State.RECEIVED: frozenset({State.VENDOR_APPROVED, State.TIER1_SCANNING}),
    State.TIER1_SCANNING: frozenset({State.TIER2_SCANNING, State.TIER1_FAILED}),
    State.TIER1_FAILED: frozenset(),
    State.TIER2_SCANNING: frozenset({State.AUTO_APPROVED, State.NEEDS_REVIEW, State.REJECTED}),
    State.AUTO_APPROVED: frozenset({State.PUBLISHED}),
    State.NEEDS_REVIEW: frozenset({State.TIER3_REVIEW, State.REJECTED}),
    State.TIER3_REVIEW: frozenset({State.PUBLISHED, State.REJECTED}),
    State.PUBLISHED: frozenset(),
    State.REJECTED: frozenset(),
    State.VENDOR_APPROVED: frozenset({State.PUBLISHED}),
}

# States the pipeline moves through on its own: the sweeps watch these for stuck and overdue
# submissions. The review states wait for people and are exempt (seed 002 §4.4).
AUTOMATED_STATES: frozenset[State] = frozenset(
    {
        State.RECEIVED,
        State.TIER1_SCANNING,
        State.TIER2_SCANNING,
        State.AUTO_APPROVED,
        State.VENDOR_APPROVED,
    }
)
REVIEW_STATES: frozenset[State] = frozenset({State.NEEDS_REVIEW, State.TIER3_REVIEW})
TERMINAL_STATES: frozenset[State] = frozenset({State.PUBLISHED, State.REJECTED, State.TIER1_FAILED})

# DESIGN.md extensions: a reviewer unassigns (seed 004), and the system gives up on an
# automated submission with an *error* outcome (seed 001).
UNASSIGN = (State.TIER3_REVIEW, State.NEEDS_REVIEW)
ERROR_REJECTION_SOURCES: frozenset[State] = AUTOMATED_STATES
# The appeal: an author appeals a reviewer's rejection once, and a member of Security who grants
# it takes the submission back into Tier 3 review, held by them, and approves it there (the
# next edge is the seed's TIER3_REVIEW → PUBLISHED, in the same transaction). Only that trigger,
# by a person, may take this edge (pipeline.transitions.check_allowed); a denied appeal changes
# no state. REJECTED stays final for every other purpose.
APPEAL = (State.REJECTED, State.TIER3_REVIEW)
APPEAL_TRIGGER = "appeal-granted"

VALID_TRANSITIONS: dict[State, frozenset[State]] = {
    state: targets
    | ({UNASSIGN[1]} if state == UNASSIGN[0] else set())
    | ({State.REJECTED} if state in ERROR_REJECTION_SOURCES else set())
    | ({APPEAL[1]} if state == APPEAL[0] else set())
    for state, targets in SEED_TRANSITIONS.items()
}


def reachable_from(state: str) -> list[str]:
    """States one legal transition away, in declaration order (for the transitions API)."""
    targets = VALID_TRANSITIONS[State(state)]
    return [candidate.value for candidate in State if candidate in targets]
