import Hummingbird
import MockStores
import NIOCore

/// The request context of the mock's Hummingbird application: the core context plus the connection's channel, so a
/// `reset` fault can close the connection without a response and a `timeout` can notice it closing.
struct MockRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
