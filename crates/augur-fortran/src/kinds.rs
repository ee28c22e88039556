//! The kinds of a build. gfortran's (and flang's) `-fdefault-real-8`,
//! `-fdefault-double-8` and `-fdefault-integer-8` change what `REAL`, `DOUBLE
//! PRECISION`, `INTEGER`, `LOGICAL`, implicit types and literals without a kind mean;
//! gfortran's `-freal-4-real-8`, `-freal-8-real-4` (and the other `-freal-M-real-N`) and
//! `-finteger-4-integer-8` also change the entities declared with a kind (`REAL(8)`,
//! `REAL*8`, `1.0_8`), and so which AbOps a program executes (a code built with
//! `-fdefault-real-8` computes in double precision though it declares `REAL`, one built
//! with `-freal-8-real-4` in single precision though it declares `DOUBLE PRECISION`).

use augur_ir::{BaseType, Type};
use std::cell::Cell;

/// The kinds (bytes) of the default types, and what the kinds written in the source
/// become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultKinds {
    /// `REAL`, `COMPLEX` (per part), real literals like `1.5`.
    pub real: u8,
    /// `DOUBLE PRECISION`, `DOUBLE COMPLEX` (per part), literals like `1.5d0`.
    pub double: u8,
    /// `INTEGER`, `LOGICAL`, integer literals.
    pub integer: u8,
    /// What a real or complex kind 4 written in the source (`REAL(4)`, `REAL*4`,
    /// `1.0_4`) is (`-freal-4-real-8`: 8).
    pub real4: u8,
    /// What a real or complex kind 8 written in the source (`REAL(8)`, `REAL*8`,
    /// `COMPLEX*16`, `1.0_8`) is (`-freal-8-real-4`: 4).
    pub real8: u8,
    /// What an integer kind 4 written in the source (`INTEGER(4)`, `INTEGER*4`, `1_4`)
    /// is (`-finteger-4-integer-8`: 8).
    pub integer4: u8,
}

impl Default for DefaultKinds {
    fn default() -> Self {
        DefaultKinds {
            real: 4,
            double: 8,
            integer: 4,
            real4: 4,
            real8: 8,
            integer4: 4,
        }
    }
}

impl DefaultKinds {
    /// The kinds a compiler gives under `flags`, by gfortran's rules: `-freal-4-real-N`
    /// also changes the default real kind and `-freal-8-real-N` the double precision
    /// kind, `-finteger-4-integer-8` the default integer kind; `-fdefault-real-8` (10,
    /// 16) and `-fdefault-double-8` take precedence for the default kinds, and with
    /// `-fdefault-real-N` alone `DOUBLE PRECISION` becomes 16 bytes.
    pub fn from_flags(flags: &[String]) -> DefaultKinds {
        let has = |f: &str| flags.iter().any(|x| x == f);
        // `-fTYPE-M-TYPE-N`: kind M of TYPE is kind N.
        let promoted = |ty: &str, m: u8, to: &[u8]| -> u8 {
            to.iter()
                .copied()
                .find(|n| has(&format!("-f{ty}-{m}-{ty}-{n}")))
                .unwrap_or(m)
        };
        let real4 = promoted("real", 4, &[8, 10, 16]);
        let real8 = promoted("real", 8, &[4, 10, 16]);
        let integer4 = promoted("integer", 4, &[8]);
        let default_real = [8, 10, 16]
            .into_iter()
            .find(|n| has(&format!("-fdefault-real-{n}")));
        DefaultKinds {
            real: default_real.unwrap_or(real4),
            double: if has("-fdefault-double-8") {
                8
            } else if default_real.is_some() {
                16
            } else {
                real8
            },
            integer: if has("-fdefault-integer-8") {
                8
            } else {
                integer4
            },
            real4,
            real8,
            integer4,
        }
    }

    /// The kind an entity written with kind `kind` (a declaration's or a literal's)
    /// has in this build.
    pub fn written(&self, base: BaseType, kind: u8) -> u8 {
        match (base, kind) {
            (BaseType::Real | BaseType::Complex, 4) => self.real4,
            (BaseType::Real | BaseType::Complex, 8) => self.real8,
            (BaseType::Integer, 4) => self.integer4,
            _ => kind,
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
    fn kind_promotion_flags_follow_gfortran() {
        let k = DefaultKinds::from_flags(&flags(&["-O2", "-freal-8-real-4"]));
        assert_eq!((k.real, k.double, k.integer), (4, 4, 4));
        assert_eq!(k.written(BaseType::Real, 8), 4);
        assert_eq!(k.written(BaseType::Complex, 8), 4);
        assert_eq!(k.written(BaseType::Real, 4), 4);
        let k = DefaultKinds::from_flags(&flags(&["-freal-4-real-8"]));
        assert_eq!((k.real, k.double), (8, 8));
        assert_eq!(k.written(BaseType::Real, 4), 8);
        let k = DefaultKinds::from_flags(&flags(&["-freal-4-real-16", "-freal-8-real-10"]));
        assert_eq!((k.real, k.double), (16, 10));
        let k = DefaultKinds::from_flags(&flags(&["-finteger-4-integer-8"]));
        assert_eq!(k.integer, 8);
        assert_eq!(k.written(BaseType::Integer, 4), 8);
        assert_eq!(k.written(BaseType::Integer, 2), 2);
        // -fdefault-real-8 and -fdefault-double-8 take precedence for the default kinds.
        let k = DefaultKinds::from_flags(&flags(&["-fdefault-real-8", "-freal-8-real-4"]));
        assert_eq!((k.real, k.double, k.real8), (8, 16, 4));
        let k = DefaultKinds::from_flags(&flags(&["-fdefault-double-8", "-freal-8-real-4"]));
        assert_eq!((k.real, k.double), (4, 8));
    }

    #[test]
    fn the_setting_is_restored() {
        {
            let _k = Scoped::set(DefaultKinds {
                real: 8,
                double: 8,
                integer: 8,
                ..DefaultKinds::default()
            });
            assert_eq!(real().kind, 8);
        }
        assert_eq!(real().kind, 4);
    }
}
