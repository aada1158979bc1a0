# --version names the tool and the library (the versions filtered); the next line, the remote cache's libcurl, depends on the build.
clc-pack --version >v.txt
rc=$?
head -n 1 v.txt
exit $rc
