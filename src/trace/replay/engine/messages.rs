//! Point-to-point messages: a send, a receive matched to it by (communicator, source,
//! tag) with wildcards, eager or rendezvous, and the completions that move the clocks.

use super::kernels::{self, latest_of};
use super::{Engine, Message, Post, Posted, Request, Step};
use crate::trace::replay::event::Slot;

impl Engine<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send(
        &mut self,
        r: usize,
        dst: u32,
        comm: u32,
        tag: i32,
        bytes: u64,
        sync: bool,
        slot: Slot,
    ) {
        let rendezvous = sync || bytes > self.network.eager_limit;
        let k = self.clocks.configs;
        let (block, gaps) = self.clocks.block_and_gaps(r);
        let start = self.times.alloc_settling(block, &gaps, k);
        let message = Message {
            src: r as u32,
            dst,
            comm,
            tag,
            bytes,
            rendezvous,
            matched: false,
            refs: 1 + u8::from(rendezvous),
            start,
        };
        let m = self.new_message(message);
        *self.request(r, slot) = if rendezvous {
            Request::Send(m)
        } else {
            self.start_flow(m);
            Request::Done
        };
        let d = dst as usize;
        let found = self.posted[d].iter().position(|p| {
            p.comm == comm && p.src.is_none_or(|s| s == r as u32) && p.tag.is_none_or(|t| t == tag)
        });
        match found {
            Some(i) => {
                let posted = self.posted[d].remove(i);
                self.take(m, d, posted.post);
                *self.request(d, posted.slot) = Request::Recv(Some(m));
                self.wake(d);
            }
            None => self.unexpected[d].push(m),
        }
    }

    /// Stores `message` under a free id.
    pub(super) fn new_message(&mut self, message: Message) -> u32 {
        match self.free_messages.pop() {
            Some(m) => {
                self.messages[m as usize] = message;
                m
            }
            None => {
                self.messages.push(message);
                (self.messages.len() - 1) as u32
            }
        }
    }

    pub(super) fn recv(
        &mut self,
        r: usize,
        src: Option<u32>,
        comm: u32,
        tag: Option<i32>,
        slot: Slot,
        capacity: Option<u64>,
    ) {
        let messages = &self.messages;
        let found = self.unexpected[r].iter().position(|&m| {
            let m = &messages[m as usize];
            m.comm == comm && src.is_none_or(|s| s == m.src) && tag.is_none_or(|t| t == m.tag)
        });
        match found {
            Some(i) => {
                let m = self.unexpected[r].remove(i);
                self.take(m, r, Post::Now);
                *self.request(r, slot) = Request::Recv(Some(m));
                let sender = self.messages[m as usize].src as usize;
                self.wake(sender);
            }
            None => {
                // Only a rendezvous transfer reads the post: a synchronous send, or a
                // message over the eager limit, and no valid message is larger than the
                // receive that takes it.
                let rendezvous_possible =
                    self.synchronous_sends || capacity.is_none_or(|c| c > self.network.eager_limit);
                let post = if rendezvous_possible {
                    Post::Kept(self.times.alloc(self.clocks.block(r)))
                } else {
                    Post::NotKept
                };
                self.posted[r].push(Posted {
                    comm,
                    src,
                    tag,
                    slot,
                    post,
                });
                *self.request(r, slot) = Request::Recv(None);
            }
        }
    }

    /// A receive of rank `receiver` takes message `m`: a rendezvous transfer starts when
    /// both sides are there, the later of the message's start and the receiver's `post`
    /// (released here).
    fn take(&mut self, m: u32, receiver: usize, post: Post) {
        let message = &mut self.messages[m as usize];
        message.matched = true;
        if message.rendezvous {
            let (start, k) = (message.start, self.clocks.configs);
            match post {
                Post::Kept(id) => {
                    self.scratch.copy_from_slice(self.times.get(id));
                    latest_of(self.times.get_mut(start), &self.scratch, k);
                }
                Post::Now => latest_of(self.times.get_mut(start), self.clocks.block(receiver), k),
                Post::NotKept => {
                    // A message larger than the receive, or a synchronous send the
                    // footers did not count: the receiver's clocks now are the nearest
                    // to its post left (no earlier).
                    self.notes.rendezvous_unposted += 1;
                    latest_of(self.times.get_mut(start), self.clocks.block(receiver), k);
                }
            }
            self.start_flow(m);
        }
        if let Post::Kept(id) = post {
            self.times.release(id);
        }
    }

    /// Completes the requests in `slots` when all are ready; otherwise waits.
    pub(super) fn complete(&mut self, r: usize, slots: &[Slot]) -> Step {
        let requests = &self.ranks[r].requests;
        let ready = slots.iter().all(|&s| {
            match requests.get(s as usize).copied().unwrap_or(Request::Idle) {
                Request::Idle | Request::Done | Request::Recv(Some(_)) => true,
                Request::Send(m) => self.messages[m as usize].matched,
                Request::Recv(None) => false,
            }
        });
        if !ready {
            return Step::Blocked;
        }
        for &slot in slots {
            let Some(&request) = self.ranks[r].requests.get(slot as usize) else {
                continue;
            };
            self.ranks[r].requests[slot as usize] = Request::Idle;
            if let Request::Send(m) | Request::Recv(Some(m)) = request {
                self.arrive(r, m);
                self.release_message(m);
            }
        }
        Step::Done
    }

    /// Rank `r` waits for message `m`'s data: where the transfer ends after its clock,
    /// its clock moves there and its path becomes the transfer's: the path where the
    /// transfer started, then α of latency and nβ of bandwidth.
    pub(super) fn arrive(&mut self, r: usize, m: u32) {
        if self.fabric.is_some() {
            return self.arrive_routed(r, m);
        }
        let message = &self.messages[m as usize];
        let (block, gaps) = self.clocks.block_and_gaps(r);
        kernels::arrive(
            block,
            &gaps,
            self.times.get(message.start),
            &self.network.alpha,
            &self.network.beta,
            message.bytes as f64,
        );
    }

    pub(super) fn release_message(&mut self, m: u32) {
        let message = &mut self.messages[m as usize];
        message.refs -= 1;
        if message.refs == 0 {
            self.times.release(message.start);
            self.free_messages.push(m);
        }
    }
}
