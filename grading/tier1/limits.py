"""Size limits that bound Tier 1's work whatever a submission contains."""

MAX_FILE_CHARS = 1024 * 1024
"""Characters of one file that are scanned; the rest is reported as not scanned."""

MAX_TOTAL_CHARS = 8 * 1024 * 1024
"""Characters of the whole bundle that are scanned."""

MAX_FILES = 2000
"""Files of one bundle that are scanned."""
