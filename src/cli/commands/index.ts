import type { CommandModule } from '../command.js';

/**
 * Every command by name, loaded on demand: a command's module pulls in its whole engine
 * (reports bring Vega and a browser driver, schedules a mailer), so `fanlake extract`
 * loads only the extractor, in less memory and time than all of them would take.
 */
export const COMMANDS: Record<string, () => Promise<CommandModule<any>>> = {
  extract: async () => (await import('./extract.js')).extractCommand,
  load: async () => (await import('./load.js')).loadCommand,
  build: async () => (await import('./build.js')).buildCommand,
  check: async () => (await import('./check.js')).checkCommand,
  report: async () => (await import('./report.js')).reportCommand,
  run: async () => (await import('./run.js')).runCommand,
  sql: async () => (await import('./sql.js')).sqlCommand,
  shell: async () => (await import('./shell.js')).shellCommand,
  status: async () => (await import('./status.js')).statusCommand,
  doctor: async () => (await import('./doctor.js')).doctorCommand,
  'export-person': async () => (await import('./export-person.js')).exportPersonCommand,
  forget: async () => (await import('./forget.js')).forgetCommand,
  schedule: async () => (await import('./schedule.js')).scheduleCommand,
  simulate: async () => (await import('./simulate.js')).simulateCommand,
  listen: async () => (await import('./listen.js')).listenCommand,
  identity: async () => (await import('./identity.js')).identityCommand,
  help: async () => (await import('./help.js')).helpCommand,
};
