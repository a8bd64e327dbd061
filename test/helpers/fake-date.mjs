// Replaces a process's `Date` with one whose current time is `now()` (the preloads
// clock-ahead.mjs and season-clock.mjs); dates built from values are left as they are.
export function installDate(now) {
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now());
      else super(...args);
    }

    static now() {
      return now();
    }
  };
  return RealDate;
}
