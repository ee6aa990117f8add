/// An item of the paged collections the navigation tests serve: its number, and the relations
/// a call may include (absent when it does not).
struct CollectionItem: Decodable, Equatable {
    struct Site: Decodable, Equatable { let host: String }
    struct Owner: Decodable, Equatable {
        let name: String
        let website: Site?
    }

    let n: Int
    let website: Site?
    let owner: Owner?
}
