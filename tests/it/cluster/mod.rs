//! Application traffic on cluster graphs: single jobs against PFSim, and `orcs jobs`
//! scenarios against hand-computed timelines and closed forms.

mod jobs;
mod pfsim;
