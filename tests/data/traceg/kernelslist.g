MemcpyHtoD,0x00007e0000001000,4096
kernel-1.traceg
kernel-1.traceg
