# merge of a pack with itself: every entry a duplicate; the result lists as
# the pack. Its sha256 line is left out: the header holds the writer's
# version (docs/FORMAT.md, writer_version), so it changes with each release.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack merge p.clcpack p.clcpack -o m.clcpack
clc-pack list m.clcpack | grep -v '^sha256: '
