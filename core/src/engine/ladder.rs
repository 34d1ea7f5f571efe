//! The hint ladder: four rungs, one at a time, within the profile's cap.
