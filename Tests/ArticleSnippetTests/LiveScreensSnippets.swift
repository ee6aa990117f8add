// swift-format-ignore-file
// LiveScreens.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). `Order` is ResourceStateSnippets.swift's.
import Foundation
import Halley

// snippet LiveScreens.md "Optimistic edits"
@MainActor func markPaid(_ detail: ResourceModel<Order>) async {
    // Shown at once, marked pending, in the detail and in every list that shows the order.
    _ = try? await detail.handle.patch(.json(["status": "paid"]), expecting: .mergePatch)
    // Refused (a 409, say)? The old status is back, and detail.error says why.
}
// end snippet

// snippet LiveScreens.md "A live paged list"
@MainActor func ordersScreen(_ manager: ResourceManager) async -> ResourceListModel<Order> {
    let orders = ResourceListModel(manager, from: URL(string: "https://api.example.com/orders")!, as: Order.self)
    await orders.loadMore()                          // the first page
    if orders.hasMore { await orders.loadMore() }    // the next, when the last row appears
    return orders
}
// end snippet

// snippet LiveScreens.md "Forgetting what nobody uses"
@MainActor func keepLive(_ store: ResourceStore, dashboard: ResourceModel<ResourceState>) async {
    dashboard.refreshInterval = .seconds(60)    // while the dashboard follows its handle
    store.idleTime = .seconds(120)              // forget what nobody has used for two minutes
    // On Linux (on Apple platforms the store does this itself):
    store.connectivityChanged(isConnected: true)
    _ = await store.refreshStale()
}
// end snippet
