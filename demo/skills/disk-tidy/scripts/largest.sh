#!/bin/sh
# Lists the twenty largest files below the current folder.
find . -type f -printf '%s %p\n' 2>/dev/null | sort -rn | head -20
