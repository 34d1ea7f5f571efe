//! Remediation: a theme that keeps coming back in Sticking points.
