// Preloaded into a `fanlake schedule` child (NODE_OPTIONS=--import, see receiverKillSwitch in
// listen.ts): SIGUSR2 fails its push receiver as a crash would (RECEIVER_FAULT_EVENT of
// src/schedule/receiver-supervisor.ts), so a test kills the receiver when it chooses while the
// process and its jobs go on.
process.on('SIGUSR2', () => process.emit('fanlake:receiver-fault', 'the receiver was killed (SIGUSR2 in a test)'));
