"""The state machine is seed 000's table plus DESIGN.md's two extensions and the appeal, and
nothing else."""

from pipeline.states import SEED_TRANSITIONS, VALID_TRANSITIONS, State, reachable_from

S = State


def test_seed_table_is_exactly_seed_000():
    assert {k: set(v) for k, v in SEED_TRANSITIONS.items()} == {
        S.RECEIVED: {S.VENDOR_APPROVED, S.TIER1_SCANNING},
        S.TIER1_SCANNING: {S.TIER2_SCANNING, S.TIER1_FAILED},
        S.TIER1_FAILED: set(),
        S.TIER2_SCANNING: {S.AUTO_APPROVED, S.NEEDS_REVIEW, S.REJECTED},
        S.AUTO_APPROVED: {S.PUBLISHED},
        S.NEEDS_REVIEW: {S.TIER3_REVIEW, S.REJECTED},
        S.TIER3_REVIEW: {S.PUBLISHED, S.REJECTED},
        S.PUBLISHED: set(),
        S.REJECTED: set(),
        S.VENDOR_APPROVED: {S.PUBLISHED},
    }


def test_extensions_are_unassign_system_error_rejections_and_the_appeal_only():
    added = {
        (source, target)
        for source, targets in VALID_TRANSITIONS.items()
        for target in targets - SEED_TRANSITIONS[source]
    }
    assert added == {
        (S.TIER3_REVIEW, S.NEEDS_REVIEW),
        (S.RECEIVED, S.REJECTED),
        (S.TIER1_SCANNING, S.REJECTED),
        (S.AUTO_APPROVED, S.REJECTED),
        (S.VENDOR_APPROVED, S.REJECTED),
        (S.REJECTED, S.TIER3_REVIEW),
    }


def test_terminal_states_have_no_way_out_but_a_granted_appeal():
    for state in (S.PUBLISHED, S.TIER1_FAILED):
        assert reachable_from(state) == []
    assert reachable_from(S.REJECTED) == [S.TIER3_REVIEW]


def test_reachable_states_are_listed_in_declaration_order():
    assert reachable_from("TIER2_SCANNING") == ["AUTO_APPROVED", "NEEDS_REVIEW", "REJECTED"]
