// The messages between the serving process (checkpointer.ts) and its WAL checkpoint thread
// (checkpoint-thread.ts).

export interface CheckpointSetup {
  kind: 'setup'
  /** The data file (the thread opens its own connection to it). */
  file: string
  /** Milliseconds between PASSIVE checkpoints. */
  intervalMs: number
  /** A WAL file larger than this is reset with TRUNCATE (bounds its size on disk). */
  truncateBytes: number
}

export type ToCheckpointThread = CheckpointSetup | { kind: 'stop' }

export type FromCheckpointThread =
  | { kind: 'ready' }
  | { kind: 'checkpointed'; mode: 'PASSIVE' | 'TRUNCATE'; log: number; moved: number }
  | { kind: 'failed'; message: string }
  | { kind: 'stopped' }
