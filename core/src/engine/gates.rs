//! Gates: mechanical checks over log, guide, profile and recorded runs.
