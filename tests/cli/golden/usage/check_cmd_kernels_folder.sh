# --check-cmd with the kernels folder: a manifest program block takes check_cmd lines.
clc-pack --kernels "$KERNELS" --check-cmd true
