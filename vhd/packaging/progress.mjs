// Progress of a long packaging run, in one place for every caller (npm run release; npm run package can
// use the same): `building 3/8 NAME (47 s)` when a step starts, and while it runs a line every 10 s, so a
// run of minutes never looks stuck. Seconds count from the run's start.
const TICK_MS = 10_000;

export function createProgress(total, startedAt, write, tickMs = TICK_MS) {
  let n = 0;
  let timer;
  let current = '';
  const elapsed = () => `${Math.round((Date.now() - startedAt) / 1000)} s`;
  return {
    start(name) {
      n++;
      current = name;
      write(`  building ${n}/${total} ${name} (${elapsed()})`);
      clearInterval(timer);
      timer = setInterval(() => write(`  still building ${n}/${total} ${current} (${elapsed()})`), tickMs);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
