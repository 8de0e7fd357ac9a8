/** What `task validate` reports of one task, whichever its format (task-validation.ts, harbor-validation.ts). */
import type { ExpectedTests } from '../../shared/task-spec';

export interface ValidationCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ValidationReport {
  taskId: string;
  dir: string;
  ok: boolean;
  checks: ValidationCheck[];
  expected: ExpectedTests | null;
  /** true when expected-tests.json was written or already matched */
  recorded: boolean;
  /** true when the recorded digest matched and nothing was run (`check` without `full`) */
  skipped?: boolean;
}
