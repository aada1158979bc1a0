# A malformed T1 spec (tests/data/tune/bad/short_data_source.json): one line naming the field, exit 1, and nothing written (the folder stays empty).
clc-pack tune "$DATA/tune/bad/short_data_source.json" --device cpu -o bad.clcpack
rc=$?
ls
exit $rc
