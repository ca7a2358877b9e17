@testable import AudioPipe
import Testing

@Test func frameSizeIsTwentyMilliseconds() {
    #expect(AudioPipe.samplesPerFrame * 1000 / AudioPipe.sampleRate == 20)
}
