import { createFakeVAD } from './fake-speech.ts';
import { runVADContract } from './vad-contract.ts';

// The fake VAD is a loudness gate. At its default level (mean 1000) it hears the fakes' data speech
// but splits flite sentences at their quieter syllables (several of 200-400 ms under 1000); set
// to 150 it passes the contract on flite speech too.
runVADContract('fake', () => createFakeVAD(), { audio: 'data-speech' });
runVADContract('fake', () => createFakeVAD({ threshold: 150 }));
