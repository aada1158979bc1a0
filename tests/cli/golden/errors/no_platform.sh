# No OpenCL driver registered: --list-devices says how to get one.
OCL_ICD_VENDORS=/nonexistent clc-pack --list-devices
