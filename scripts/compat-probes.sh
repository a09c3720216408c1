#!/bin/sh
# placeholder: writes an empty probe header (to be replaced by the real probes)
mkdir -p "$(dirname "$2")"
echo "/* generated */" > "$2"
