# A malformed T1 spec (tests/data/tune/bad/expr_syntax.json): one line naming the field, exit 1, and nothing written (the folder stays empty).
clc-pack tune "$DATA/tune/bad/expr_syntax.json" --device cpu -o bad.clcpack
rc=$?
ls
exit $rc
