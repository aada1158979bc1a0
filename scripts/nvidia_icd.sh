# nvidia_icd.sh — sourced by the GPU scripts (scripts/gpu_run.sh,
# scripts/make_ptx_fixture.sh): register_nvidia_opencl registers NVIDIA's
# OpenCL driver with the ICD loader when it is installed but not
# registered: in /etc/OpenCL/vendors when that can be written, else through
# a private vendors folder in OCL_ICD_VENDORS. Returns 1 when the driver
# is not installed.
register_nvidia_opencl() {
    if grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
        echo "already registered: $(grep -ls nvidia /etc/OpenCL/vendors/*.icd)"
        return 0
    fi
    lib=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1/{print $NF; exit}')
    if [ -z "$lib" ]; then
        echo "NVIDIA's OpenCL driver (libnvidia-opencl.so.1) is not installed" >&2
        return 1
    fi
    if [ -w /etc/OpenCL/vendors ] || { [ "$(id -u)" = 0 ] && mkdir -p /etc/OpenCL/vendors; }; then
        echo "$lib" > /etc/OpenCL/vendors/nvidia.icd
        echo "registered $lib in /etc/OpenCL/vendors/nvidia.icd"
    else
        # Not root: a private vendors folder for the ICD loader (ocl-icd).
        vendors=$(mktemp -d)
        cp /etc/OpenCL/vendors/*.icd "$vendors"/ 2>/dev/null || true
        echo "$lib" > "$vendors/nvidia.icd"
        export OCL_ICD_VENDORS=$vendors
        echo "registered $lib through OCL_ICD_VENDORS=$vendors"
    fi
}
