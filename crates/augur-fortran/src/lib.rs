//! Fortran front end (being written).
