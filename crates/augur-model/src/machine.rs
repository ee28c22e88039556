//! A machine as the commands load it for prediction: its profile (by path or library
//! name) with the cost table built once.

use crate::{CostTable, PredictOptions, Prediction};
use augur_machine_profile::library::{self, LibraryError};
use augur_machine_profile::MachineProfile;
use augur_program_profile::ProgramProfile;
use std::path::PathBuf;

/// A machine as loaded for prediction.
#[derive(Clone)]
pub struct LoadedMachine {
    /// Name shown (file stem).
    pub name: String,
    /// Its file.
    pub path: PathBuf,
    /// The profile.
    pub profile: MachineProfile,
    /// Its cost table.
    pub table: CostTable,
}

impl LoadedMachine {
    /// Loads a machine given by path or library name.
    pub fn load(spec: &str) -> Result<LoadedMachine, LibraryError> {
        let (name, path, profile) = library::load(spec)?;
        let table = CostTable::from_profile(&profile);
        Ok(LoadedMachine {
            name,
            path,
            profile,
            table,
        })
    }

    /// `compiler flags` of the profile, for headings.
    pub fn setup(&self) -> String {
        let p = &self.profile.provenance;
        format!("{} {}", p.compiler, p.fflags).trim().to_string()
    }

    /// Predicts one program with the caller's options.
    pub fn predict(&self, program: &ProgramProfile, options: PredictOptions) -> Prediction {
        crate::predict::predict_with(program, &self.table, &self.profile, options)
    }
}
