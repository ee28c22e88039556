//! The default kinds of a build. gfortran's (and flang's) `-fdefault-real-8`,
//! `-fdefault-double-8` and `-fdefault-integer-8` change what `REAL`, `DOUBLE
//! PRECISION`, `INTEGER`, `LOGICAL`, implicit types and literals without a kind mean,
//! and so which AbOps a program executes (a code built with `-fdefault-real-8`
//! computes in double precision though it declares `REAL`).

use augur_ir::{BaseType, Type};
use std::cell::Cell;

/// The kinds (bytes) of the default types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultKinds {
    /// `REAL`, `COMPLEX` (per part), real literals like `1.5`.
    pub real: u8,
    /// `DOUBLE PRECISION`, `DOUBLE COMPLEX` (per part), literals like `1.5d0`.
    pub double: u8,
    /// `INTEGER`, `LOGICAL`, integer literals.
    pub integer: u8,
}

impl Default for DefaultKinds {
    fn default() -> Self {
        DefaultKinds {
            real: 4,
            double: 8,
            integer: 4,
        }
    }
}

impl DefaultKinds {
    /// The default kinds a compiler gives under `flags` (gfortran's rules: with
    /// `-fdefault-real-8` alone, `DOUBLE PRECISION` becomes 16 bytes).
    pub fn from_flags(flags: &[String]) -> DefaultKinds {
        let has = |f: &str| flags.iter().any(|x| x == f);
        let real8 = has("-fdefault-real-8");
        DefaultKinds {
            real: if real8 { 8 } else { 4 },
            double: if real8 && !has("-fdefault-double-8") {
                16
            } else {
                8
            },
            integer: if has("-fdefault-integer-8") { 8 } else { 4 },
        }
    }
}

thread_local! {
    static CURRENT: Cell<DefaultKinds> = Cell::new(DefaultKinds::default());
}

/// The default kinds of the analysis running on this thread.
pub(crate) fn current() -> DefaultKinds {
    CURRENT.with(Cell::get)
}

/// Sets the default kinds of this thread's analysis until dropped.
pub(crate) struct Scoped(DefaultKinds);

impl Scoped {
    pub(crate) fn set(kinds: DefaultKinds) -> Scoped {
        Scoped(CURRENT.with(|c| c.replace(kinds)))
    }
}

impl Drop for Scoped {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Default `REAL`.
pub(crate) fn real() -> Type {
    Type {
        base: BaseType::Real,
        kind: current().real,
    }
}

/// `DOUBLE PRECISION`.
pub(crate) fn double() -> Type {
    Type {
        base: BaseType::Real,
        kind: current().double,
    }
}

/// Default `INTEGER`.
pub(crate) fn integer() -> Type {
    Type {
        base: BaseType::Integer,
        kind: current().integer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(f: &[&str]) -> Vec<String> {
        f.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn promotion_flags_follow_gfortran() {
        assert_eq!(
            DefaultKinds::from_flags(&flags(&["-O2"])),
            DefaultKinds::default()
        );
        let r8 = DefaultKinds::from_flags(&flags(&["-O2", "-fdefault-real-8"]));
        assert_eq!((r8.real, r8.double, r8.integer), (8, 16, 4));
        let all = DefaultKinds::from_flags(&flags(&[
            "-fdefault-real-8",
            "-fdefault-double-8",
            "-fdefault-integer-8",
        ]));
        assert_eq!((all.real, all.double, all.integer), (8, 8, 8));
    }

    #[test]
    fn the_setting_is_restored() {
        {
            let _k = Scoped::set(DefaultKinds {
                real: 8,
                double: 8,
                integer: 8,
            });
            assert_eq!(real().kind, 8);
        }
        assert_eq!(real().kind, 4);
    }
}
