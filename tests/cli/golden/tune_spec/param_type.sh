# A malformed T1 spec (tests/data/tune/bad/param_type.json): one line naming the field, exit 1, and nothing written (the folder stays empty).
clc-pack tune "$DATA/tune/bad/param_type.json" --device cpu -o bad.clcpack
rc=$?
ls
exit $rc
