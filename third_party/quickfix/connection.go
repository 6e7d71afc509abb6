// Copyright (c) quickfixengine.org  All rights reserved.
//
// This file may be distributed under the terms of the quickfixengine.org
// license as defined by quickfixengine.org and appearing in the file
// LICENSE included in the packaging of this file.
//
// This file is provided AS IS with NO WARRANTY OF ANY KIND, INCLUDING
// THE WARRANTY OF DESIGN, MERCHANTABILITY AND FITNESS FOR A
// PARTICULAR PURPOSE.
//
// See http://www.quickfixengine.org/LICENSE for licensing information.
//
// Contact ask@quickfixengine.org if any conditions of this licensing
// are not clear to you.

package quickfix

import "io"

// writeLoop writes the session's outgoing messages. bondvenue patch 2:
// the messages waiting in the channel are written together, up to 64 KiB
// per write, instead of one write(2) each.
func writeLoop(connection io.Writer, messageOut chan []byte, log Log) {
	var buf []byte
	for {
		msg, ok := <-messageOut
		if !ok {
			return
		}
		buf = append(buf[:0], msg...)
		open := true
	drain:
		for open && len(buf) < 64<<10 {
			select {
			case msg, open = <-messageOut:
				buf = append(buf, msg...)
			default:
				break drain
			}
		}
		if _, err := connection.Write(buf); err != nil {
			log.OnEvent(err.Error())
		}
		if !open {
			return
		}
	}
}

func readLoop(parser *parser, msgIn chan fixIn, log Log) {
	defer close(msgIn)

	for {
		msg, err := parser.ReadMessage()
		if err != nil {
			log.OnEvent(err.Error())
			return
		}
		msgIn <- fixIn{msg, parser.lastRead}
	}
}
