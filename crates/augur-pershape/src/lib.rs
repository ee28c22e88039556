//! Machines compared in Saavedra-Barrera's frame (dissertation, chapter 2, §2.7-2.8):
//! the 17 reduced parameters of a machine profile ([`reduced`]), the pershape distance of
//! equation 2.10 and the clusters of figure 2.7 ([`distance`]), the ratio tables of
//! Appendix 2.C ([`compare`]), Kiviat and cluster figures as SVG ([`svg`]), and the
//! thesis's own machines transcribed into profiles ([`thesis`]).
//!
//! Works on any machine profile, measured today or historical. Reads formats only.

pub mod compare;
pub mod distance;
pub mod reduced;
pub mod svg;
pub mod thesis;

pub use compare::{compare, Comparison, THRESHOLD};
pub use distance::{clusters, distance, Clusters, Distance};
pub use reduced::{reduce, Reduced, ReducedParameter, PARAMETERS};
