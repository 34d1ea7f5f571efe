//! The hour: phases, what to show and the nudges, from start time, now and pace.
