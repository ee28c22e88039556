//! Extraction of affine nests from augur's program model (to come).
