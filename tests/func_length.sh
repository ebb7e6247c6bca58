#!/bin/sh
# func_length.sh: no function over 60 lines (from the line of its opening brace to the line of its
# closing brace, both counted) in lib/, solvers/, kernels/, dropin/ or tools/ (doc/HACKING.md
# section 2).  The code's style puts a function's braces alone at the start of a line and nothing
# else there (an initializer's or a struct's opening brace ends its line), so a body is the span
# from a line "{" to the next line starting with "}"; its name is the nearest line before it
# that starts with an identifier, the signature's first line.
set -u
LC_ALL=C; export LC_ALL
top=${srcdir:-.}
max=${MIX_FUNC_MAX_LINES:-60}
files=$(cd "$top" && find lib kernels solvers dropin tools -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
[ -n "$files" ] || { echo "FAIL: no sources found under $top"; exit 1; }
long=$(cd "$top" && awk -v max="$max" '
  FNR == 1 { open = 0; sig = "" }
  /^[A-Za-z_]/ && !open { sig = $0 }
  /^\{/ && !open { open = FNR; name = sig; next }
  /^\}/ && open {
    n = FNR - open + 1
    if (n > max) {
      sub(/\(.*/, "", name); k = split(name, w, /[ *]+/)
      printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, open, w[k], n, max
    }
    open = 0
  }' $files)
if [ -n "$long" ]; then
  echo "$long" | sed 's/^/FAIL: /'
  echo "func_length.sh: $(echo "$long" | wc -l) function(s) over $max lines (split them: doc/HACKING.md section 2)"
  exit 1
fi
echo "func_length.sh: every function of lib/, solvers/, kernels/, dropin/, tools/ is at most $max lines"
