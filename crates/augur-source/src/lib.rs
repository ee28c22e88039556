//! Source loading (placeholder; being written).
