// The RFQ inbox's sound: a short beep made by the Web Audio API (no audio
// file is downloaded), played only when the trader turned it on.

/** shouldBeep says whether new RFQs arrived since last seen, with the sound on. */
export function shouldBeep(lastSeen: number, arrived: number, on: boolean): boolean {
  return on && arrived > lastSeen;
}

/** beep plays 150 ms at 880 Hz, quietly; a browser without Web Audio (or that refuses it) stays silent. */
export function beep(): void {
  try {
    const w = globalThis as unknown as { AudioContext?: typeof AudioContext; webkitAudioContext?: typeof AudioContext };
    const Ctx = w.AudioContext ?? w.webkitAudioContext;
    if (!Ctx) return;
    const ctx = new Ctx();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.05;
    osc.connect(gain).connect(ctx.destination);
    osc.onended = () => void ctx.close();
    osc.start();
    osc.stop(ctx.currentTime + 0.15);
  } catch {
    /* no sound: the badge still shows */
  }
}
