#!/bin/bash
# relink.sh RT.c OUT: the kept mpf_cavity_fd objects linked with runtime RT.c
set -e
cd /tmp/s97/exp
gcc -O2 -c "$1" -o rt.o
gfortran -O2 aug0_incomp2d.o aug1_fftcos.o aug2_fftpackt.o augur_counts_mod.o rt.o -o "$2"
