// The bondvenue trading screen: a client of the public REST API and the
// Socket.IO stream, served by the venue binary from embedded assets.
import { render } from "preact";
import "./style.css";
import { App } from "./app/App";
import { Venue } from "./state/venue";

const venue = new Venue();

// A reload keeps the session (the tab's token) and the route (the hash).
void venue.resume();
render(<App venue={venue} />, document.getElementById("app")!);

