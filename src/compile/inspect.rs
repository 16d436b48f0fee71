//! What a compiled program reads and refuses, without running it: the global names it looks
//! up and the messages of its `raise_exception` calls.

use super::{Instr, Program};

impl Program {
    /// The global names the program reads (its free variables), in first-use order.
    pub(crate) fn global_names(&self) -> impl Iterator<Item = &str> {
        self.globals.iter().map(|g| &**g)
    }

    /// The messages of the program's `raise_exception(...)` calls, in code order, each once.
    /// A message built from constants and run-time values shows the constant parts with
    /// `…` where a value goes.
    pub(crate) fn raise_messages(&self) -> Vec<String> {
        let Some(raise) = self.globals.iter().position(|g| &**g == "raise_exception") else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        let mut pc = 0;
        while pc < self.code.len() {
            if matches!(self.code[pc], Instr::LoadGlobal(g) if g as usize == raise) {
                let (msg, end) = self.call_message(pc + 1);
                if !msg.is_empty() && !out.contains(&msg) {
                    out.push(msg);
                }
                pc = end;
            } else {
                pc += 1;
            }
        }
        out
    }

    /// The message of the call whose arguments start at `pc`: constant strings joined, `…`
    /// for each run of other values; and the instruction after the call.
    fn call_message(&self, mut pc: usize) -> (String, usize) {
        let mut msg = String::new();
        let mut gap = false;
        // Nested calls (filters are not calls) open and close argument lists.
        let mut depth = 0usize;
        while let Some(ins) = self.code.get(pc) {
            pc += 1;
            match *ins {
                Instr::Str(i) => {
                    if gap {
                        msg.push('…');
                    }
                    gap = false;
                    msg.push_str(&self.strs[i as usize]);
                }
                Instr::Call { .. } | Instr::CallSplat { .. } if depth == 0 => break,
                Instr::Call { .. } | Instr::CallSplat { .. } => {
                    depth -= 1;
                    gap = true;
                }
                // A builtin function opens a nested call; other globals are values.
                Instr::LoadGlobal(g) => {
                    if matches!(self.global_builtins().get(usize::from(g)), Some(Some(_))) {
                        depth += 1;
                    }
                    gap = true;
                }
                Instr::Jump(_)
                | Instr::JumpIfFalse(_)
                | Instr::Halt
                | Instr::Return
                | Instr::Emit
                | Instr::EmitStr(_)
                | Instr::EmitConcatN(_)
                | Instr::EmitRaw(..) => break,
                Instr::AddN(_) | Instr::ConcatN(_) | Instr::Bin(_) | Instr::Dup | Instr::Pop => {}
                _ => gap = true,
            }
        }
        if gap && !msg.is_empty() {
            msg.push('…');
        }
        (msg, pc)
    }
}
