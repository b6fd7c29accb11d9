"""Where a skill's files come from: an inline upload or a shallow git fetch. Either way the
result is one validated Bundle, snapshotted once for every tier."""
